/**
 * The scenario contract: loads `scenarios/*.json` (one file per scenario, the single source used
 * by the verifier and by every load driver) and turns a scenario plus parameter values into a
 * concrete request and an expected response.
 *
 * Template rule: in a request or expected body, a string that is exactly `{{p}}` is replaced by
 * the value of parameter `p` (any JSON value); `{{p}}` inside a longer string is replaced by the
 * value as text (URL-encoded when it stands in a request path). `{{p.field}}` (a dot path) takes
 * a member of an object value, e.g. `{{user.id}}` of a sampled user row.
 *
 * Per-request random values: a parameter `{ "from": "database.sampleUsers", "pick": "random" }`
 * is one seeded row (`{id, name, email}`) of the run's sample (`RuntimeValues.sampleUsers`, read
 * from the database, services/database.ts). The verifier draws fresh random rows; under load
 * `loadVariants()` gives one request per sampled row and the driver sends a random one each time
 * (`LoadJob.variants`), so no cache can answer the scenario.
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
     * / `manifest.graphql.userByIdQuery` / `manifest.graphql.userByIdPath` (the contender's
     * GraphQL dialect) or `database.firstUsers` (rows 1..10 of `users`, read from the database
     * by the harness).
     */
    from: z.enum([
      'manifest.graphql.usersQuery',
      'manifest.graphql.usersPath',
      'manifest.graphql.userByIdQuery',
      'manifest.graphql.userByIdPath',
      'database.firstUsers',
    ]),
  }),
  z.strictObject({
    /** One row of the run's sampled seeded users, a different random one per request. */
    from: z.literal('database.sampleUsers'),
    pick: z.literal('random'),
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
  /**
   * The scenario's baseline contender: every ratio of the scenario's tables is taken against it
   * and the scheduler starts it with every group (`node-http` for REST scenarios, a GraphQL
   * contender for GraphQL ones; scenarios/README.md says which and why).
   */
  baseline: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a contender name (lower-case letters, digits and dashes)'),
  /**
   * The default latency objective of the capacity search: p99 ≤ this many ms at the
   * sustained rate (`--slo-p99` overrides). Simple REST routes 10 ms, the fan-out and the database
   * health check 25 ms, GraphQL 50 ms, introspection 100 ms (scenarios/README.md says why).
   */
  sloP99Ms: z.number().positive().max(60000).default(50),
  /**
   * The scenario's place in the contract order (lists, tables and exports sort by it); scenarios
   * without one sort after those with one, by name. The contract's own use steps of 10.
   */
  order: z.number().int().nonnegative().optional(),
  /**
   * A simple REST route that needs no service (ping, json, echo, users, post): the self-test's
   * default scenarios (cli/selftest.ts) and the reference set against which the issue analysis
   * says a scenario "collapses" (a contender's figure far below its median over the others).
   */
  reference: z.boolean().default(false),
  /**
   * What of a contender a failure or a slow tail in this scenario points at, from which the
   * report words its hint: the framework under concurrency (default), its request body parser,
   * its outgoing HTTP client (fan-out), or its database pool and resolver path.
   */
  focus: z.enum(['framework', 'body-parsing', 'http-client', 'database']).default('framework'),
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

/**
 * Reads and validates every `*.json` scenario (not `*.schema.json`) in `dir`, sorted by each
 * file's `order` (those without one last, by name).
 */
export function loadScenarios(dir: string): Scenario[] {
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
  const rank = (x: Scenario) => x.order ?? Number.POSITIVE_INFINITY;
  return list.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** Reads the shared JSON Schemas (`*.schema.json`) of the scenarios folder, for `$ref`s. */
export function loadSharedSchemas(dir: string): object[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

/** One request of a load job with the parameter values it was made from (drivers/driver-types.ts has the same shape). */
export interface RequestVariant {
  request: ConcreteRequest;
  params: ParamValues;
}

/** A seeded user row as the GraphQL scenarios compare it. */
export interface UserRow {
  id: number;
  name: string;
  email: string;
}

/** Run-time values for `from` parameters: the contender's GraphQL dialect and rows read from the database. */
export interface RuntimeValues {
  graphql?: { usersQuery: string; usersPath: string; userByIdQuery?: string; userByIdPath?: string };
  firstUsers?: unknown[];
  /** The run's sample of seeded rows (≥ 200, deterministic ids) for `database.sampleUsers` parameters. */
  sampleUsers?: UserRow[];
  /** The contender's own paths for contract paths (Hasura serves /graphql at /v1/graphql). */
  paths?: Record<string, string>;
}

function fromValue(s: Scenario, key: string, from: string, rt: RuntimeValues): unknown {
  const g = rt.graphql;
  const values: Record<string, unknown> = {
    'manifest.graphql.usersQuery': g?.usersQuery,
    'manifest.graphql.usersPath': g?.usersPath,
    'manifest.graphql.userByIdQuery': g?.userByIdQuery,
    'manifest.graphql.userByIdPath': g?.userByIdPath,
    'database.firstUsers': rt.firstUsers,
    'database.sampleUsers': rt.sampleUsers?.length ? rt.sampleUsers : undefined,
  };
  const v = values[from];
  if (v === undefined)
    throw new Error(`scenario ${s.name}: parameter '${key}' needs ${from}, which this run does not have`);
  return v;
}

/** True for a parameter drawn at random per request (`pick: "random"`). */
function isPicked(p: Scenario['params'][string]): p is { from: 'database.sampleUsers'; pick: 'random' } {
  return 'pick' in p;
}

/**
 * The parameter values used under load (fixed seed values, and run-time `from` values); a
 * `pick: "random"` parameter takes the first sampled row (the job's `request`; the variants
 * cover the rest). Throws Error when a run-time value is missing.
 */
export function loadParams(s: Scenario, rt: RuntimeValues = {}): ParamValues {
  return Object.fromEntries(
    Object.entries(s.params).map(([k, p]) => {
      if ('load' in p) return [k, p.load];
      const v = fromValue(s, k, p.from, rt);
      return [k, isPicked(p) ? (v as unknown[])[0] : v];
    }),
  );
}

/** Fresh random values for the `verify` parameters and a random sampled row for `pick` ones (other `from` values stay). */
export function randomParams(s: Scenario, rt: RuntimeValues = {}): ParamValues {
  const word = () => `v${randomBytes(5).toString('hex')}`;
  return Object.fromEntries(
    Object.entries(s.params).map(([k, p]) => {
      if (!('verify' in p)) {
        const v = fromValue(s, k, p.from, rt);
        if (!isPicked(p)) return [k, v];
        const rows = v as unknown[];
        return [k, rows[randomInt(rows.length)]];
      }
      if (p.verify === 'word') return [k, word()];
      return [
        k,
        { [word()]: word(), n: randomInt(1, 1_000_000), list: [randomInt(0, 100), word()], nested: { ok: true } },
      ];
    }),
  );
}

/**
 * The per-request variants of a scenario under load: one request per sampled row (every
 * `pick: "random"` parameter takes row i), with the parameter values it was made from, so a
 * sampled response is checked against its own row. Undefined when the scenario has no `pick`
 * parameter. Throws Error when the run has no sample (`rt.sampleUsers`).
 */
export function loadVariants(s: Scenario, rt: RuntimeValues = {}): RequestVariant[] | undefined {
  const picked = Object.entries(s.params).filter(([, p]) => isPicked(p));
  const [first] = picked;
  if (!first) return undefined;
  const base = loadParams(s, rt);
  const rows = fromValue(s, first[0], 'database.sampleUsers', rt) as unknown[];
  return rows.map((row) => {
    const params: ParamValues = { ...base };
    for (const [k] of picked) params[k] = row;
    return { request: buildRequest(s, params, rt.paths), params };
  });
}

/** True when the scenario has parameters the verifier randomises (`verify` kinds and `pick: "random"`). */
export function hasRandomParams(s: Scenario): boolean {
  return Object.values(s.params).some((p) => 'verify' in p || isPicked(p));
}

/** The value of `{{name}}` or `{{name.path.to.field}}`. */
function paramValue(params: ParamValues, ref: string): unknown {
  const [k = '', ...rest] = ref.split('.'); // split always yields at least one part
  let cur: unknown = params[k];
  for (const key of rest) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

function substitute(value: unknown, params: ParamValues, encode: (s: string) => string): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+(?:\.\w+)*)\}\}$/.exec(value);
    const ref = whole?.[1];
    if (ref !== undefined) return paramValue(params, ref);
    return value.replace(/\{\{(\w+(?:\.\w+)*)\}\}/g, (_, k: string) => encode(String(paramValue(params, k))));
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
