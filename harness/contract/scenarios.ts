/**
 * The scenario contract: loads `scenarios/*.json` (one file per scenario, the single source used
 * by the verifier and by every load driver) and turns a scenario plus parameter values into a
 * concrete request and an expected response.
 *
 * Template rule: in a request or expected body, a string that is exactly `{{p}}` is replaced by
 * the value of parameter `p` (any JSON value); `{{p}}` inside a longer string is replaced by the
 * value as text (URL-encoded when it stands in a request path).
 *
 * Throws UserError when a scenario file is unreadable or does not match the scenario format.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { formatZodError } from '../core/zod-format.ts';

const ParamSpec = z.union([
  z.strictObject({
    /** The value sent under load (seed-given, fixed so that runs compare). */
    load: z.json(),
    /** How the verifier makes a fresh random value, so a hard-coded answer fails. */
    verify: z.enum(['word', 'json-object']),
  }),
  z.strictObject({
    /**
     * A value supplied at run time: `manifest.graphql.usersQuery` / `manifest.graphql.usersPath`
     * (the contender's GraphQL dialect) or `database.firstUsers` (rows 1..10 of `users`, read
     * from the database by the harness).
     */
    from: z.enum(['manifest.graphql.usersQuery', 'manifest.graphql.usersPath', 'database.firstUsers']),
  }),
]);

const BodyExpectation = z
  .object({
    text: z.string().optional(),
    exact: z.json().optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    deterministic: z.boolean().optional(),
    /** A GraphQL reply: an `errors` member fails even with status 200. */
    graphql: z.boolean().optional(),
    /** Compare only the value at this dot path (may be a `{{param}}`). */
    at: z.string().optional(),
  })
  .refine((b) => [b.text, b.exact, b.schema].filter((x) => x !== undefined).length === 1, {
    message: 'exactly one of text, exact or schema is required',
  });

export const ScenarioSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/),
  title: z.string(),
  source: z.string(),
  needs: z.array(z.enum(['upstream', 'database'])).default([]),
  params: z.record(z.string(), ParamSpec).default({}),
  request: z.object({
    method: z.enum(['GET', 'POST']),
    path: z.string().startsWith('/'),
    headers: z.record(z.string(), z.string()).default({}),
    body: z.json().optional(),
  }),
  response: z.object({
    status: z.number().int(),
    contentType: z.string(),
    body: BodyExpectation,
  }),
});

/** One scenario as defined in `scenarios/<name>.json`. */
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ParamValues = Record<string, unknown>;

/** A concrete HTTP request: method, path (with query), headers, body text (or undefined). */
export interface ConcreteRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Reads and validates every `*.json` scenario (not `*.schema.json`) in `dir`, sorted by a fixed order. */
export function loadScenarios(dir: string): Scenario[] {
  const order = ['ping', 'json', 'echo', 'users', 'post', 'fanout', 'graphql-ping', 'graphql-users'];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'));
  const list = files.map((f) => {
    const file = path.join(dir, f);
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UserError(`${file}: not valid JSON (${(e as Error).message})`);
    }
    const parsed = ScenarioSchema.safeParse(raw);
    if (!parsed.success) throw new UserError(`${file}: bad scenario definition\n${formatZodError(parsed.error)}`);
    if (`${parsed.data.name}.json` !== f)
      throw new UserError(`${file}: field 'name' is '${parsed.data.name}', expected '${f.slice(0, -5)}'`);
    return parsed.data;
  });
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  return list.sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

/** Reads the shared JSON Schemas (`*.schema.json`) of the scenarios folder, for `$ref`s. */
export function loadSharedSchemas(dir: string): object[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

/** Run-time values for `from` parameters: the contender's GraphQL dialect and rows read from the database. */
export interface RuntimeValues {
  graphql?: { usersQuery: string; usersPath: string };
  firstUsers?: unknown[];
  /** The contender's own paths for contract paths (Hasura serves /graphql at /v1/graphql). */
  paths?: Record<string, string>;
}

function fromValue(s: Scenario, key: string, from: string, rt: RuntimeValues): unknown {
  const v =
    from === 'manifest.graphql.usersQuery'
      ? rt.graphql?.usersQuery
      : from === 'manifest.graphql.usersPath'
        ? rt.graphql?.usersPath
        : rt.firstUsers;
  if (v === undefined)
    throw new Error(`scenario ${s.name}: parameter '${key}' needs ${from}, which this run does not have`);
  return v;
}

/** The parameter values used under load (fixed seed values, and run-time `from` values). */
export function loadParams(s: Scenario, rt: RuntimeValues = {}): ParamValues {
  return Object.fromEntries(
    Object.entries(s.params).map(([k, p]) => [k, 'load' in p ? p.load : fromValue(s, k, p.from, rt)]),
  );
}

/** Fresh random values for the `verify` parameters (run-time `from` values stay as they are). */
export function randomParams(s: Scenario, rt: RuntimeValues = {}): ParamValues {
  const word = () => `v${randomBytes(5).toString('hex')}`;
  return Object.fromEntries(
    Object.entries(s.params).map(([k, p]) => {
      if (!('verify' in p)) return [k, fromValue(s, k, p.from, rt)];
      if (p.verify === 'word') return [k, word()];
      return [
        k,
        { [word()]: word(), n: randomInt(1, 1_000_000), list: [randomInt(0, 100), word()], nested: { ok: true } },
      ];
    }),
  );
}

/** True when the scenario has parameters the verifier randomises. */
export function hasRandomParams(s: Scenario): boolean {
  return Object.values(s.params).some((p) => 'verify' in p);
}

function substitute(value: unknown, params: ParamValues, encode: (s: string) => string): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole) return params[whole[1]];
    return value.replace(/\{\{(\w+)\}\}/g, (_, k: string) => encode(String(params[k])));
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, params, encode));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, params, encode)]));
  }
  return value;
}

/** The concrete request for a scenario with the given parameter values (and the contender's path map). */
export function buildRequest(s: Scenario, params: ParamValues, paths: Record<string, string> = {}): ConcreteRequest {
  const full = substitute(s.request.path, params, encodeURIComponent) as string;
  const q = full.indexOf('?');
  const pathname = q < 0 ? full : full.slice(0, q);
  const req: ConcreteRequest = {
    method: s.request.method,
    path: (paths[pathname] ?? pathname) + (q < 0 ? '' : full.slice(q)),
    headers: { ...s.request.headers },
  };
  if (s.request.body !== undefined) req.body = JSON.stringify(substitute(s.request.body, params, (x) => x));
  return req;
}

/** The expected exact JSON body (for `exact` scenarios) with the given parameter values. */
export function expectedExact(s: Scenario, params: ParamValues): unknown {
  return substitute(s.response.body.exact, params, (x) => x);
}

/** The dot path (`at`) whose value is compared, with parameters filled in, or undefined. */
export function expectedAt(s: Scenario, params: ParamValues): string | undefined {
  return s.response.body.at === undefined ? undefined : String(substitute(s.response.body.at, params, (x) => x));
}
