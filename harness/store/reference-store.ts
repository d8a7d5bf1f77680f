/**
 * Steady-state reference records (`just reference`, cli/reference.ts): written as
 * `results/reference/<run-id>.json` through store/runs.ts, read back here for `reference-compare`
 * and for the report's how-sure line (every record, merged). Only the fields those read are
 * validated (zod; other fields pass). Ratios are unitless; intervals are 95% between processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { readValidated } from './result-files.ts';
import { CpuIdentitySchema } from './schema.ts';
import { writeReferenceRecord } from './runs.ts';

const MeanSe = z.looseObject({ se: z.number().nonnegative(), df: z.number().positive(), pooled: z.boolean() });

const Figure = z.looseObject({
  figure: z.number(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  n: z.number().int().nonnegative(),
  /** The interval's df and the ratio's SE split into its two means: absent in records made before they were stored. */
  df: z.number().positive().optional(),
  split: z.looseObject({ own: MeanSe, base: MeanSe }).optional(),
});

/** A measured process's figures (the fields the ratios are computed from) and its windows' other work. */
const Process = z.looseObject({
  contender: z.string(),
  scenario: z.string(),
  block: z.number().int().positive().optional(),
  rps: z.number(),
  efficiency: z.number().nullable(),
  windows: z.array(z.looseObject({ durationS: z.number(), foreignCpuS: z.number().nullable().optional() })).optional(),
});

const RecordSchema = z.looseObject({
  kind: z.literal('bakeoff-reference'),
  version: z.number().int().min(1),
  runId: z.string().min(1),
  at: z.string().min(1),
  meetsMinimums: z.boolean(),
  /** How quiet the machine was (analysis/reference-stats.ts QuietCheck); absent in records made before it was read. */
  quiet: z.looseObject({ disturbed: z.number().int().nonnegative(), read: z.number().int().nonnegative() }).optional(),
  /** The run's design, machine and Node.js: records that share them may be pooled block by block (analysis/reference-merge.ts). */
  design: z
    .looseObject({
      warmupS: z.number(),
      windows: z.number(),
      windowS: z.number(),
      connections: z.number(),
      order: z.string(),
    })
    .optional(),
  machine: z
    .looseObject({
      cpuModel: z.string(),
      os: z.string().optional(),
      cores: z.number().optional(),
      cpu: CpuIdentitySchema.optional(),
    })
    .optional(),
  node: z.string().optional(),
  /** Every measured process (ratios are recomputed from them when a record lacks their df and split). */
  processes: z.array(Process).optional(),
  ratios: z.array(
    z.looseObject({
      contender: z.string(),
      scenario: z.string(),
      baseline: z.string(),
      rps: Figure,
      efficiency: Figure.nullable(),
    }),
  ),
});

/** A reference record as read (the validated fields). */
export type ReferenceRecord = z.output<typeof RecordSchema>;

/** Writes a reference record; returns the file (store/runs.ts `writeReferenceRecord`). */
export function writeReference(resultsDir: string, runId: string, record: unknown): string {
  return writeReferenceRecord(resultsDir, runId, record);
}

/** Reads one reference record. Throws UserError (exit 2) when the file is missing or not a reference record. */
export function readReference(file: string): ReferenceRecord {
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  if (!fs.existsSync(file))
    throw new UserError(
      `no reference record at ${file}: run \`just reference <contenders>\` or name a file of results/reference/`,
    );
  const r = readValidated(file, RecordSchema, acc);
  if (!r)
    throw new UserError(`${file} is not a reference record: ${acc.warnings.join('; ') || 'it failed the schema'}`);
  return r;
}

/**
 * Every valid reference record under `<resultsDir>/reference/` that meets the reference's
 * minimums (a shortened or interrupted run is no reference), oldest first by `at`; the report
 * reads them together, each through its quiet part (analysis/reference-merge.ts `mergeReferences`:
 * the processes other work disturbed left out). Warnings name the files skipped as bad.
 */
export function readReferences(resultsDir: string): { references: ReferenceRecord[]; warnings: string[] } {
  const dir = path.join(resultsDir, 'reference');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return { references: [], warnings: [] };
  }
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  const references = names
    .sort()
    .map((name) => readValidated(path.join(dir, name), RecordSchema, acc))
    .filter((r): r is ReferenceRecord => Boolean(r?.meetsMinimums))
    .sort((a, b) => a.at.localeCompare(b.at));
  return { references, warnings: acc.warnings };
}
