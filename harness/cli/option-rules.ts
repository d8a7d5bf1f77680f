/**
 * The rules of the CLI's option values (cli/options.ts holds each command's schema): commander's
 * argument parsers of --port, --host and --url (a bad value is commander's "option … argument …
 * is invalid", exit 2, with the usage hint), the collector of comma-separated lists, the rules of
 * the flags several commands share, and the defaults that do not depend on a profile. The zod
 * pieces that turn a raw string into a checked number are core/option-values.ts's, the profile
 * overrides' rules core/profile-overrides.ts's.
 */
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { checkNumber, httpUrl, integer, numeric, numericOr, range } from '../core/option-values.ts';
import { WHY_INTERVAL_US } from '../lifecycle/cpu-prof.ts';
import { parseMajors } from '../lifecycle/node-runtime.ts';

// --- commander argument parsers (errors: commander's "option … argument … is invalid", exit 2) ---

/** Comma-separated values, also repeatable (`-s json,echo -s users`), trimmed, empty ones dropped. */
export function list(v: string, prev: string[] = []): string[] {
  return [
    ...prev,
    ...v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ];
}

/** `--port`: an integer from 1 to 65535. */
export function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError(`--port must be an integer from 1 to 65535, got '${v}'`);
  return n;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** True for a dotted-quad IPv4 literal in 127.0.0.0/8 whose parts are 0–255 without leading zeros. */
function isLoopbackIpv4(v: string): boolean {
  const parts = v.split('.');
  return (
    parts.length === 4 && parts[0] === '127' && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

/** `--host`: a loopback address only (load tests never leave this machine); a valid IPv4 literal. */
export function parseHost(v: string): string {
  if (!LOOPBACK_HOSTS.includes(v) && !isLoopbackIpv4(v))
    throw new InvalidArgumentError(
      `--host must be a loopback address (127.0.0.1 or ::1, or 127.x.y.z with each part 0–255); servers never listen off this machine. Got '${v}'`,
    );
  return v === '[::1]' ? '::1' : v;
}

/** `--url`: http or https on a loopback host (127.0.0.1, localhost, [::1]). */
export function parseUrl(v: string): string {
  const u = httpUrl(v);
  if (typeof u === 'string') throw new InvalidArgumentError(u);
  if (!LOOPBACK_HOSTS.includes(u.hostname))
    throw new InvalidArgumentError(
      `--url must point at this machine (127.0.0.1, localhost or [::1]); load tests never leave it. Got ${u.hostname}`,
    );
  return v;
}

// --- the flags' rules, shared by the commands' schemas (cli/options.ts) ---

/** The defaults of the options that do not depend on a profile (shown in the help as strings). */
export const OPTION_DEFAULTS = {
  /** `--upstream-delay`: the upstream mock's delay per response, ms. */
  upstreamDelayMs: 0,
  /** `--interval` of `why` and `bench --profile-cpu`: V8's sampling interval, µs (docs/why.md). */
  intervalUs: WHY_INTERVAL_US,
  /** `why --top`: buckets shown per table. */
  top: 12,
  /** `selftest --copies`: identical copies of the fixture. */
  copies: 10,
  /** `compare --threshold`: the noise threshold, a fraction. */
  threshold: 0.05,
} as const;

/** `--rounds` of bench (its old name `--trials` says its own name in the message). */
export const roundsRule = (flag: string) => range(flag, 1, 50, true, 'an integer');
/** `--seed`: an integer (absent: random, chosen where the run starts). */
export const SEED = numeric([integer('--seed')]);
/** `--upstream-delay`: ms ≥ 0, default OPTION_DEFAULTS.upstreamDelayMs. */
export const UPSTREAM_DELAY = numericOr(
  [[(n) => Number.isFinite(n) && n >= 0, (v) => `--upstream-delay must be a number of ms ≥ 0, got '${v}'`]],
  OPTION_DEFAULTS.upstreamDelayMs,
);
/** `--interval`: V8's sampling interval, whole µs from 1 to 100000. */
export const INTERVAL = range('--interval', 1, 100_000);

/** `--node`: comma-separated Node.js majors (lifecycle/node-runtime.ts `parseMajors`); absent stays absent. */
export const NODE_MAJORS = z
  .string()
  .optional()
  .transform((v, ctx) => {
    try {
      return v === undefined ? undefined : parseMajors(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });

/** `--fidelity s` / `--cross-check s` (seconds 0–60, 0 = off), or false from `--no-fidelity` (= 0). */
export const fidelitySeconds = (flag: string) =>
  z
    .union([z.literal(false), z.string()])
    .optional()
    .transform((v, ctx) =>
      v === false
        ? 0
        : v === undefined
          ? undefined
          : checkNumber(
              v,
              [
                [
                  (n) => Number.isFinite(n) && n >= 0 && n <= 60,
                  (raw) => `${flag} must be seconds from 0 to 60 (0 = off), got '${raw}'`,
                ],
              ],
              ctx,
            ),
    );
