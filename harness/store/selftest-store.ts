/**
 * Reading `just selftest` records (`results/selftest/<id>.json`, written by store/runs.ts
 * `writeSelftest` from cli/selftest.ts) for the report's how-sure line: this machine's
 * resolution as the self-test measured it.
 *
 * Only the fields the report uses are validated (zod; other fields pass). Records of the first
 * design (no `version`, before in-run copies: no false-difference rate per pair) are skipped
 * silently; a record with a version that fails the schema is skipped with a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { MachineFacts } from '../core/machine.ts';
import { readMetaFile, readValidated } from './result-files.ts';

const Share = z.object({
  pairs: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1),
  ci95: z.tuple([z.number(), z.number()]).nullable().optional(),
});

const Clustered = z.looseObject({
  ci95: z.tuple([z.number(), z.number()]),
  effectivePairs: z.number().nullable(),
  runsToCertify8: z.number().nullable().optional(),
});

/** The false-difference rate's dependence-aware interval (pigeonhole bootstrap over tables and copies). */
export interface ClusteredInterval {
  ci95: [number, number];
  /** What the pairs are worth as independent ones (null when the rate is 0 or 1). */
  effectivePairs: number | null;
  /** Runs of the record's design that would put the upper end at ≤ 8% at its rate (null: none would). */
  runsToCertify8: number | null;
}

/** The fields of a self-test record (version ≥ 2) the report reads. */
const SelftestRecordSchema = z.looseObject({
  version: z.number().int().min(2),
  /** When the self-test finished (ISO 8601). */
  at: z.string().min(1),
  runs: z.looseObject({ main: z.string().min(1) }),
  /** Identical copies judged different: rate of the null pairs, Clopper–Pearson 95% CI. */
  falseDifference: Share,
  /** Copies slowed 10% detected as slower. */
  power10: Share,
  /** The self-test run's median minimum detectable difference between two rows (a ratio − 1, e.g. 0.10). */
  medianMddPair: z.number().nullable().optional(),
  /** The slowdown the "10%" copies really had in the run (a share, e.g. 0.152). */
  measuredSlowdown: z.looseObject({ slow10: z.number().nullable().optional() }).optional(),
  /** The false-difference rate's interval counting the pairs' dependence (analysis/cluster-bootstrap.ts); absent in older records. */
  falseDifferenceClustered: Clustered.nullable().optional(),
});

/** The newest self-test as the report shows it (rates are shares 0–1; `medianMdd` a ratio − 1). */
export interface SelftestSummary {
  /** The record's file, relative to the results folder's parent (e.g. `results/selftest/X.json`). */
  file: string;
  /** When it finished, ISO 8601. */
  at: string;
  /** The id of its main run (the run judged pair by pair). */
  mainRun: string;
  falseDifference: {
    rate: number;
    /** Clopper–Pearson over the pairs as if independent (too narrow: the pairs share copies and tables). */
    ci95: [number, number] | null;
    pairs: number;
    /** The interval that counts the dependence: from the record, or recomputed from its main run (cli/selftest.ts); null when neither has it. */
    clustered?: ClusteredInterval | null;
  };
  power10: { rate: number; ci95: [number, number] | null; pairs: number };
  /** The slowdown the "10%" copies had as measured in the run (a share), when recorded. */
  measured10: number | null;
  medianMdd: number | null;
  /** The machine its main run ran on (`selftest/runs/<main>/meta.json` machine: CPU, kernel, cores, CPU identity), null when that file is missing. */
  machine: MachineFacts | null;
}

/**
 * The newest (by `at`) valid self-test record under `<resultsDir>/selftest/`, or null when there
 * is none; warnings name the records skipped as bad. Never throws on bad files.
 */
export function readNewestSelftest(resultsDir: string): { selftest: SelftestSummary | null; warnings: string[] } {
  const dir = path.join(resultsDir, 'selftest');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return { selftest: null, warnings: [] };
  }
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  let best: SelftestSummary | null = null;
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    if (!hasVersion(file)) continue; // the first design's records: no per-pair rates to show
    const r = readValidated(file, SelftestRecordSchema, acc);
    if (!r || (best && r.at <= best.at)) continue;
    best = {
      file: path.relative(path.dirname(resultsDir), file).split(path.sep).join('/'),
      at: r.at,
      mainRun: r.runs.main,
      falseDifference: {
        rate: r.falseDifference.rate,
        ci95: r.falseDifference.ci95 ?? null,
        pairs: r.falseDifference.pairs,
        clustered: r.falseDifferenceClustered
          ? {
              ci95: r.falseDifferenceClustered.ci95,
              effectivePairs: r.falseDifferenceClustered.effectivePairs,
              runsToCertify8: r.falseDifferenceClustered.runsToCertify8 ?? null,
            }
          : null,
      },
      power10: { rate: r.power10.rate, ci95: r.power10.ci95 ?? null, pairs: r.power10.pairs },
      measured10: r.measuredSlowdown?.slow10 ?? null,
      medianMdd: r.medianMddPair ?? null,
      machine: machineOf(path.join(dir, 'runs', r.runs.main, 'meta.json')),
    };
  }
  return { selftest: best, warnings: acc.warnings };
}

/** `machine` of a run's meta.json (result-files.ts `readMetaFile`), or null when it is missing or bad (no warning: the line just names no host). */
function machineOf(metaFile: string): MachineFacts | null {
  return readMetaFile(metaFile, { skipped: [], warnings: [] })?.machine ?? null;
}

/** Whether a JSON file has a top-level `version` (unreadable or not JSON: true, so the reader warns). */
function hasVersion(file: string): boolean {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return typeof data !== 'object' || data === null || 'version' in data;
  } catch {
    return true;
  }
}
