/**
 * The rules of the CLI's option values (cli/options.ts holds each command's schema): commander's
 * argument parsers of --port, --host and --url (a bad value is commander's "option … argument …
 * is invalid", exit 2, with the usage hint), the collector of comma-separated lists, the zod
 * pieces that turn a raw string into a checked number with a message that names the flag, what
 * it takes and what was given, the rules of the flags several commands share, and the defaults
 * that do not depend on a profile.
 */
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { WHY_INTERVAL_US } from '../lifecycle/cpu-prof.ts';

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
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError(`--url must be an http URL like http://127.0.0.1:18080, got '${v}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InvalidArgumentError(
      `--url takes http:// or https:// only, got '${u.protocol}' (e.g. http://127.0.0.1:18080)`,
    );
  if (!LOOPBACK_HOSTS.includes(u.hostname))
    throw new InvalidArgumentError(
      `--url must point at this machine (127.0.0.1, localhost or [::1]); load tests never leave it. Got ${u.hostname}`,
    );
  return v;
}

// --- numbers: a raw string → a number that passes every check, or the first failing check's message ---

/** One rule of a numeric option: whether the number passes, and the message for the raw string when not. */
export type Rule = readonly [ok: (n: number) => boolean, message: (raw: string) => string];

/** `raw` as a number passing `rules` in order; a blank string is not a number. Adds the first failing rule's issue to `ctx`. */
export function checkNumber(raw: string, rules: readonly Rule[], ctx: z.RefinementCtx): number | typeof z.NEVER {
  const n = raw.trim() === '' ? Number.NaN : Number(raw);
  for (const [ok, message] of rules)
    if (!ok(n)) {
      ctx.addIssue({ code: 'custom', message: message(raw) });
      return z.NEVER;
    }
  return n;
}

/** A numeric option (`rules` as in checkNumber); absent stays absent. */
export function numeric(rules: readonly Rule[]) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => (v === undefined ? undefined : checkNumber(v, rules, ctx)));
}

/** A numeric option (`rules` as in checkNumber) that is `dflt` when absent. */
export function numericOr(rules: readonly Rule[], dflt: number) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => (v === undefined ? dflt : checkNumber(v, rules, ctx)));
}

export const isInt = (n: number) => Number.isInteger(n);
/** "FLAG must be NOUN from MIN to MAX, got 'v'" for a number outside [min, max] (or not whole, with `int`). */
export const range = (
  flag: string,
  min: number,
  max: number,
  int = true,
  noun = int ? 'a whole number' : 'a number',
): Rule => [
  (n) => Number.isFinite(n) && n >= min && n <= max && (!int || isInt(n)),
  (v) => `${flag} must be ${noun} from ${min} to ${max}, got '${v}'`,
];
export const positive = (flag: string): Rule => [
  (n) => Number.isFinite(n) && n > 0,
  (v) => `${flag} must be a positive number, got '${v}'`,
];
export const integer = (flag: string): Rule => [isInt, (v) => `${flag} must be an integer, got '${v}'`];

/** A zod issue as a UserError message: the custom messages above as they are, any other with its field. */
function issueMessage(issue: z.ZodError['issues'][number]): string {
  if (issue.code === 'custom') return issue.message;
  const field = issue.path.map((p) => String(p).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)).join('.');
  return `--${field}: ${issue.message}`;
}

/** `raw` parsed by `schema`; throws a UserError (exit 2) with the first issue's message. */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  throw new UserError(r.error.issues.map(issueMessage)[0] ?? 'bad options');
}

/** `o` without its undefined fields (so that an absent option stays absent, not a key with undefined). */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
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
/** `--seed`: an integer (absent: random, chosen where the run starts). */
export const SEED = numeric([integer('--seed')]);
/** `--upstream-delay`: ms ≥ 0, default OPTION_DEFAULTS.upstreamDelayMs. */
export const UPSTREAM_DELAY = numericOr(
  [[(n) => Number.isFinite(n) && n >= 0, (v) => `--upstream-delay must be a number of ms ≥ 0, got '${v}'`]],
  OPTION_DEFAULTS.upstreamDelayMs,
);
/** `--interval`: V8's sampling interval, whole µs from 1 to 100000. */
export const INTERVAL = range('--interval', 1, 100_000);

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
