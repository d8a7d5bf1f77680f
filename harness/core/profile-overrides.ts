/**
 * The profile overrides from raw strings (`--driver`, `--duration`, `--warmup`, `--slice`, `--paired-rounds`,
 * `--vus`, `--rate`, `--slo-p99`), typed and range-checked for core/profiles.ts `withOverrides`,
 * which fits them to the profile. Used by cli/options.ts (bench, bench-all, why) and by
 * compose/k8s/k6-job.ts.
 */
import { z } from 'zod';
import { defined, isInt, numeric, parseWith, positive, range, type Rule } from './option-values.ts';
import { CONNECTION_DRIVERS, type ConnectionDriver, type ProfileOverrides } from './profiles.ts';

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

/** The raw fields of the profile overrides, each typed and range-checked (core/profiles.ts `withOverrides` fits them to the profile). */
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
 * core/profiles.ts `withOverrides`. Throws UserError naming the first bad option.
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
