/**
 * Option values from raw strings, checked: the zod pieces that turn a string typed on a command
 * line (or a job file's field) into a number that passes every rule, with a message that names the
 * flag, what it takes and what was given ("--rounds must be an integer from 1 to 50, got '0'"),
 * the parse that throws that message as a UserError (exit 2), and the check of an http(s) URL.
 * Used by cli/ (each command's schema) and by core/profile-overrides.ts.
 */
import { z } from 'zod';
import { UserError } from './errors.ts';

/** `v` as an absolute http:// or https:// URL, or the message saying why it is not one (flag `--url`). */
export function httpUrl(v: string): URL | string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return `--url must be an http URL like http://127.0.0.1:18080, got '${v}'`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `--url takes http:// or https:// only, got '${u.protocol}' (e.g. http://127.0.0.1:18080)`;
  return u;
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
