/**
 * zod schemas of the result files, used by every reader (store/result-files.ts) so that no content of
 * `results/` can crash the leaderboard, compare, export or baseline: a file that fails its
 * schema is skipped with one warning naming the file and the first wrong field.
 *
 * The schemas check what readers rely on (identity of a cell, its status, and for an `ok` cell
 * the measured numbers); every other field passes through unchanged (`looseObject`), so older
 * runs (e.g. `driverCrossCheck` instead of `fidelity`) stay readable.
 */
import { z } from 'zod';

const num = z.number().finite();

/**
 * The fields a schema checks, without the `[k: string]: unknown` signature of its loose objects
 * (recursively; arrays and `z.record` maps are kept). A record interface `T` agrees with a schema
 * `S` when `T` is assignable to `Checked<z.output<S>>`: every field the schema checks exists in `T`
 * with a type the schema accepts. The compiler checks this where a reader narrows a validated file
 * to its record type (store/result-files.ts `readCellFile`, `readMetaFile`).
 */
export type Checked<T> = T extends readonly (infer U)[]
  ? Checked<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Checked<T[K]> }
    : T;

/**
 * Narrows a value that passed schema `S` to its record interface `T`. Compile-time check: `T` must
 * agree with `S` (`T extends Checked<z.output<S>>`), so that a field whose type differs between the
 * interface and the schema, or a checked field the interface lacks, fails `tsc`. The fields the
 * schema does not check are taken as the harness wrote them.
 */
export function asRecord<T extends Checked<z.output<S>>, S extends z.ZodType>(value: z.output<S>): T {
  return value as Checked<z.output<S>> as T;
}

const LoadSchema = z.looseObject({
  requestsPerSec: z.looseObject({ mean: num, samples: z.array(num) }),
  latencyMs: z.looseObject({ p50: num, p90: num, p99: num, max: num }),
  requests: z.looseObject({ total: num }),
  errors: num,
  timeouts: num,
  non2xx: num,
  durationS: num,
  bodyChecks: z.looseObject({ sampled: num, mismatched: num }),
  profile: z.looseObject({ name: z.string(), driver: z.string() }),
});

/** A cell or trial file (`cells/*.json`, `trials/*.json`). */
export const CellFileSchema = z
  .looseObject({
    schemaVersion: z.literal(1),
    runId: z.string().min(1),
    cellId: z.string().min(1),
    contender: z.string().min(1),
    variant: z.string().nullable(),
    label: z.string().min(1),
    displayName: z.string(),
    tags: z.record(z.string(), z.string()),
    scenario: z.string().min(1),
    driver: z.string().min(1),
    profile: z.string().min(1),
    node: z.looseObject({ version: z.string(), major: num }),
    status: z.enum([
      'ok',
      'verify-failed',
      'load-failed',
      'build-failed',
      'start-failed',
      'crashed',
      'uncontained',
      'error',
      'skipped',
      'unsupported',
    ]),
    verification: z.looseObject({ level: z.enum(['pass', 'warn', 'fail']), reasons: z.array(z.string()) }).nullable(),
    load: LoadSchema.nullable(),
    failure: z.looseObject({ reason: z.string(), logTail: z.string() }).nullable(),
    target: z.looseObject({ kind: z.enum(['local', 'external']), url: z.string().nullable() }).optional(),
    cpuPlan: z.looseObject({ pinned: z.boolean() }),
    paired: z
      .looseObject({
        efficiency: num.positive(),
        requests: num,
        serverCpuS: num,
        activeS: num,
        servers: num,
        sliceMs: num,
        instance: z.number().int().positive().optional(),
      })
      .optional(),
    startedAt: z.string(),
    finishedAt: z.string(),
  })
  .refine((c) => c.status !== 'ok' || c.load !== null, {
    message: 'an ok cell has no load measurement',
    path: ['load'],
  });

/** A machine's CPU identity (core/machine.ts `CpuIdentity`), in a run's meta.json and a reference record. */
export const CpuIdentitySchema = z.looseObject({
  vendor: z.string(),
  family: z.number().int(),
  model: z.number().int(),
  stepping: z.number().int(),
  microcode: z.string(),
  mitigations: z.record(z.string(), z.string()),
});

/** A one-sentence driver check of a run (`fidelity`, or `driverCrossCheck` in older runs): readers use `summary`. */
const DriverCheckSchema = z.looseObject({ status: z.string(), summary: z.string() });

/**
 * A run's `meta.json`. Every field a reader uses is typed here (a wrong type skips the run with a
 * warning instead of crashing a report); `tempDirs`, written by older harnesses, is tolerated and
 * never acted on (store/runs.ts `sweepAbandoned` deletes nothing a meta.json names).
 */
export const MetaFileSchema = z.looseObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  state: z.enum(['running', 'complete', 'interrupted', 'abandoned']),
  command: z.array(z.string()),
  profile: z.string(),
  machine: z.looseObject({
    cpuModel: z.string(),
    cores: num,
    memoryBytes: num,
    os: z.string(),
    arch: z.string(),
    cpu: CpuIdentitySchema.optional(),
  }),
  node: z.looseObject({ version: z.string() }),
  cpuPlan: z.looseObject({ pinned: z.boolean() }),
  harnessPid: z.number().int().positive().optional(),
  harnessPidStart: z.string().optional(),
  git: z.looseObject({ commit: z.string().nullable(), dirty: z.boolean().nullable() }),
  design: z.looseObject({ baselines: z.record(z.string(), z.string()), burstRequests: num }).optional(),
  trials: z.looseObject({ count: num, shuffleSeed: num }).optional(),
  nodes: z.array(z.looseObject({ major: num, version: z.string() })).optional(),
  packages: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  fidelity: DriverCheckSchema.optional(),
  driverCrossCheck: DriverCheckSchema.optional(),
  tempDirs: z.unknown().optional(),
});
