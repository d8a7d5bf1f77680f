/**
 * The profile overrides from raw strings (`--driver`, `--duration`, `--warmup`, `--slice`, `--paired-rounds`,
 * `--vus`, `--rate`, `--slo-p99`), typed and range-checked for `withOverrides` (below),
 * which fits them to the profile. Used by cli/options.ts (bench, bench-all, why) and by
 * compose/k8s/k6-job.ts.
 */
import { z } from 'zod';
import { defined, isInt, numeric, parseWith, positive, range, type Rule } from './option-values.ts';
import { UserError } from './errors.ts';
import { CONNECTION_DRIVERS, type ConnectionDriver, interleaveOf, PROFILES, type Profile } from './profiles.ts';

/** `--duration`: a positive whole number of seconds (wrk's -d and autocannon's duration are whole seconds). */
export const DURATION: readonly Rule[] = [
  positive('--duration'),
  [
    isInt,
    (v) => `--duration is a whole number of seconds (the drivers time windows in seconds), at least 1; got '${v}'`,
  ],
];
/** `--warmup`: whole seconds from 0 to 600 per server process (the drivers time windows in seconds). */
export const WARMUP: readonly Rule[] = [range('--warmup', 0, 600, true, 'a whole number of seconds')];

/** The raw fields of the profile overrides, each typed and range-checked (`withOverrides` (below) fits them to the profile). */
export const OVERRIDES = z.object({
  driver: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || (CONNECTION_DRIVERS as readonly string[]).includes(v))
        return v as ConnectionDriver | undefined;
      ctx.addIssue({ code: 'custom', message: `--driver must be one of ${CONNECTION_DRIVERS.join(', ')}, got '${v}'` });
      return z.NEVER;
    }),
  duration: numeric(DURATION),
  warmup: numeric(WARMUP),
  slice: numeric([range('--slice', 10, 5000, true, 'a whole number of ms')]),
  pairedRounds: numeric([range('--paired-rounds', 2, 200, true, 'a whole number of interleaved rounds')]),
  vus: numeric([positive('--vus'), [isInt, (v) => `--vus is a whole number of VUs, at least 1; got '${v}'`]]),
  rate: numeric([positive('--rate')]),
  sloP99: numeric([
    positive('--slo-p99'),
    [(n) => n <= 60_000, (v) => `--slo-p99 is in ms and at most 60000, got '${v}'`],
  ]),
});

/**
 * `--driver`, `--duration`, `--warmup`, `--slice`, `--paired-rounds`, `--vus`, `--rate` and `--slo-p99` from raw strings, typed for
 * `withOverrides` (below). Throws UserError naming the first bad option.
 */
export function parseProfileOverrides(raw: {
  driver?: string;
  duration?: string;
  warmup?: string;
  slice?: string;
  pairedRounds?: string;
  vus?: string;
  rate?: string;
  sloP99?: string;
}): ProfileOverrides {
  return overridesOf(parseWith(OVERRIDES, raw));
}

/** The typed overrides from OVERRIDES' parsed fields (absent ones left out). */
export function overridesOf(o: z.output<typeof OVERRIDES>): ProfileOverrides {
  return defined({
    driver: o.driver,
    durationS: o.duration,
    warmupS: o.warmup,
    sliceMs: o.slice,
    pairedRounds: o.pairedRounds,
    vus: o.vus,
    rate: o.rate,
    sloP99Ms: o.sloP99,
  });
}

/** The CLI's overrides of a profile, typed (cli/options.ts parses and range-checks them). */
export interface ProfileOverrides {
  /** `--driver`: a connection profile's load driver. */
  driver?: ConnectionDriver;
  /** `--duration`: one window, whole seconds. */
  durationS?: number;
  /** `--warmup`: the warm-up of each server process, whole seconds ≥ 0. */
  warmupS?: number;
  /** `--slice`: the interleaved rounds' slice, ms. */
  sliceMs?: number;
  /** `--paired-rounds`: the number of interleaved rounds per cell (more rounds, the same shape). */
  pairedRounds?: number;
  /** `--vus`: k6 VUs. */
  vus?: number;
  /** `--rate`: k6-rate's arrival rate, requests/s. */
  rate?: number;
  /** `--slo-p99`: the capacity profile's p99 objective, ms. */
  sloP99Ms?: number;
}

/**
 * Applies the CLI's overrides to a profile: `driver` replaces a connection profile's driver,
 * `durationS` its window, `warmupS` every profile's warm-up per server process, `sliceMs` the
 * interleaved rounds' slice, `pairedRounds` their number, `vus` and `rate` a k6 profile's, `sloP99Ms` the capacity search's
 * objective. The values come checked (cli/options.ts); this checks that each fits the profile's
 * driver or executor, and throws UserError naming the flag when one does not.
 */
export function withOverrides(p: Profile, o: ProfileOverrides): Profile {
  let out: Profile = { ...p };
  if (o.driver !== undefined) {
    if (out.driver === 'k6')
      throw new UserError(
        `--driver applies to the connection profiles, not ${p.name} (a k6 profile: its driver is k6)`,
      );
    out = { ...out, driver: o.driver };
  }
  if (o.durationS !== undefined) {
    if (p.driver === 'k6' && p.stages)
      throw new UserError(`--duration does not apply to ${p.name} (ramping stages are fixed)`);
    out = { ...out, durationS: o.durationS } as Profile;
  }
  if (o.warmupS !== undefined) out = { ...out, warmupS: o.warmupS } as Profile;
  if (o.sliceMs !== undefined || o.pairedRounds !== undefined) {
    const il = interleaveOf(out);
    const flag = o.sliceMs !== undefined ? '--slice' : '--paired-rounds';
    if (!il) {
      const names = PROFILES.filter((x) => interleaveOf(x)).map((x) => x.name);
      throw new UserError(
        `${flag} applies to the profiles with interleaved rounds (${names.join(', ')}), not ${p.name}`,
      );
    }
    out = {
      ...out,
      interleave: { ...il, sliceMs: o.sliceMs ?? il.sliceMs, rounds: o.pairedRounds ?? il.rounds },
    } as Profile;
  }
  if (o.vus !== undefined) {
    if (out.driver !== 'k6' || out.executor === 'ramping-vus')
      throw new UserError(`--vus applies to the k6 profiles k6-vus, k6-rate and quick-k6, not ${p.name}`);
    out = { ...out, vus: o.vus };
  }
  if (o.rate !== undefined) {
    if (out.driver !== 'k6' || out.executor !== 'constant-arrival-rate')
      throw new UserError(`--rate applies to k6-rate only, not ${p.name}`);
    out = { ...out, rate: o.rate };
  }
  if (o.sloP99Ms !== undefined) {
    if (out.driver === 'k6' || !out.capacity)
      throw new UserError(`--slo-p99 applies to the capacity profile only, not ${p.name} (try --profile capacity)`);
    out = { ...out, capacity: { ...out.capacity, sloP99Ms: o.sloP99Ms } };
  }
  return out;
}
