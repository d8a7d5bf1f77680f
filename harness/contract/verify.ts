/**
 * The contract verifier: checks one HTTP response against a scenario, TechEmpower-style, and
 * verifies a running contender scenario by scenario. GraphQL scenarios fail on an `errors`
 * member even with status 200, and compare only the value at the manifest's result path.
 *
 * Levels (one per contender × scenario):
 * - `fail`: wrong status, missing/wrong media type, no framing (neither content-length nor
 *   chunked), content-length that disagrees with the body, a body that does not match, no answer.
 *   A failed cell is not measured and not ranked.
 * - `warn`: right media type but a charset other than utf-8 (the contract asks for
 *   `; charset=utf-8`, TechEmpower only warns on this).
 * - `pass`: everything matches.
 *
 * The same `checkResponse` runs in the load driver on sampled responses (body mismatches).
 */
import { isDeepStrictEqual } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import {
  buildRequest,
  expectedAt,
  expectedExact,
  hasRandomParams,
  loadParams,
  randomParams,
  type ParamValues,
  type RuntimeValues,
  type Scenario,
} from './scenarios.ts';
import { describeError, fetchOnce, type ResponseLike } from './http.ts';

export type { ResponseLike };

export type Level = 'pass' | 'warn' | 'fail';

/** Outcome of a check: the level and the human-readable reasons for anything not `pass`. */
export interface Verdict {
  level: Level;
  reasons: string[];
}

const worst = (a: Level, b: Level): Level =>
  a === 'fail' || b === 'fail' ? 'fail' : a === 'warn' || b === 'warn' ? 'warn' : 'pass';

/** Merges verdicts: the worst level wins, reasons are concatenated. */
export function mergeVerdicts(vs: Verdict[]): Verdict {
  return vs.reduce((acc, v) => ({ level: worst(acc.level, v.level), reasons: [...acc.reasons, ...v.reasons] }), {
    level: 'pass' as Level,
    reasons: [] as string[],
  });
}

/** Compiles JSON Schemas once per scenario; shared schemas resolve `$ref`s. */
export class ContractChecker {
  private ajv: Ajv;
  private compiled = new Map<string, ValidateFunction>();

  constructor(sharedSchemas: object[]) {
    this.ajv = new Ajv({ allErrors: false, strict: false });
    for (const s of sharedSchemas) this.ajv.addSchema(s);
  }

  private validator(s: Scenario): ValidateFunction {
    let v = this.compiled.get(s.name);
    if (!v) {
      v = this.ajv.compile(s.response.body.schema as object);
      this.compiled.set(s.name, v);
    }
    return v;
  }

  /** Checks one response of scenario `s` that was requested with `params`. Never throws. */
  checkResponse(s: Scenario, params: ParamValues, res: ResponseLike): Verdict {
    const reasons: string[] = [];
    let level: Level = 'pass';
    const fail = (r: string) => {
      level = 'fail';
      reasons.push(r);
    };
    const warn = (r: string) => {
      level = worst(level, 'warn');
      reasons.push(r);
    };

    if (res.status !== s.response.status) fail(`status ${res.status}, expected ${s.response.status}`);

    const ct = headerValue(res.headers['content-type']);
    if (!ct) fail(`no content-type header, expected '${s.response.contentType}; charset=utf-8'`);
    else {
      const [media = '', ...paramsRaw] = ct.split(';').map((x) => x.trim());
      const charset = paramsRaw.map((p) => p.split('=')).find(([k]) => k?.toLowerCase() === 'charset')?.[1];
      if (media.toLowerCase() !== s.response.contentType)
        fail(`content-type '${ct}', expected '${s.response.contentType}; charset=utf-8'`);
      else if (charset?.replace(/"/g, '').toLowerCase() !== 'utf-8')
        warn(`content-type '${ct}' lacks '; charset=utf-8'`);
    }

    const body = typeof res.body === 'string' ? Buffer.from(res.body) : res.body;
    const cl = headerValue(res.headers['content-length']);
    const te = headerValue(res.headers['transfer-encoding']);
    if (cl === undefined && !(te && /chunked/i.test(te))) fail('neither content-length nor chunked transfer-encoding');
    if (cl !== undefined && Number(cl) !== body.length)
      fail(`content-length ${cl} but the body has ${body.length} bytes`);

    if (res.status === s.response.status) {
      const bodyVerdict = this.checkBody(s, params, body.toString('utf8'));
      if (bodyVerdict) fail(bodyVerdict);
    }
    return { level, reasons };
  }

  /** Returns a reason when the body text does not match scenario `s`, undefined when it does. */
  checkBody(s: Scenario, params: ParamValues, text: string): string | undefined {
    const exp = s.response.body;
    if (exp.text !== undefined)
      return text === exp.text ? undefined : `body ${clip(JSON.stringify(text))}, expected ${JSON.stringify(exp.text)}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return `body is not JSON: ${clip(JSON.stringify(text))}`;
    }
    if (exp.graphql && parsed && typeof parsed === 'object' && 'errors' in parsed) {
      return `GraphQL errors in the reply: ${clip(JSON.stringify((parsed as { errors: unknown }).errors))}`;
    }
    const at = expectedAt(s, params);
    if (at !== undefined) {
      let cur: unknown = parsed;
      for (const key of at.split('.'))
        cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
      if (cur === undefined) return `nothing at ${at} in the body ${clip(text)}`;
      parsed = cur;
    }
    if (exp.exact !== undefined) {
      const want = expectedExact(s, params);
      if (isDeepStrictEqual(parsed, want)) return undefined;
      const fields = fieldDifferences(parsed, want);
      if (fields) return `${at ? `${at}: ` : 'body: '}${fields}`;
      return `${at ? `${at}: ` : 'body '}${clip(JSON.stringify(parsed))}, expected ${clip(JSON.stringify(want))}`;
    }
    const validate = this.validator(s);
    if (validate(parsed)) return undefined;
    const e = validate.errors?.[0];
    return `body does not match the schema: ${e?.instancePath || '(root)'} ${e?.message ?? ''} (body ${clip(text)})`;
  }
}

/**
 * Field by field, for two plain objects (e.g. a user row by id): "field name 'x', expected 'y';
 * field phone unexpected", or undefined when either is not a plain object.
 */
function fieldDifferences(got: unknown, want: unknown): string | undefined {
  const plain = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
  if (!plain(got) || !plain(want)) return undefined;
  const out: string[] = [];
  for (const [k, v] of Object.entries(want)) {
    if (!(k in got)) out.push(`field ${k} missing, expected ${clip(JSON.stringify(v), 60)}`);
    else if (!isDeepStrictEqual(got[k], v))
      out.push(`field ${k} ${clip(JSON.stringify(got[k]), 60)}, expected ${clip(JSON.stringify(v), 60)}`);
  }
  for (const k of Object.keys(got)) if (!(k in want)) out.push(`field ${k} not in the contract`);
  return out.join('; ');
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h.join(', ') : h;
}

function clip(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** Random sampled rows the verifier asks for in a scenario with a `pick: "random"` parameter (graphql-node). */
export const RANDOM_PICKS = 3;

/**
 * Verifies scenario `s` against a running contender at `baseUrl`: the load request (seed values)
 * and, when the scenario has parameters, a request with fresh random values (so a hard-coded
 * answer fails; RANDOM_PICKS requests with random sampled rows when a parameter is picked per
 * request); `deterministic` scenarios are fetched twice and must return identical bodies.
 * `deadlines` (ms) bound each whole response (contract/http.ts `fetchOnce`): `timeoutMs` from the
 * request (default 5000), `bodyTimeoutMs` from the response head (default: the same); a response
 * that misses one fails with the reason.
 */
export async function verifyScenario(
  checker: ContractChecker,
  baseUrl: string,
  s: Scenario,
  rt: RuntimeValues = {},
  deadlines: { timeoutMs?: number; bodyTimeoutMs?: number } = {},
): Promise<Verdict> {
  const fetch = (req: Parameters<typeof fetchOnce>[1]) =>
    fetchOnce(baseUrl, req, deadlines.timeoutMs, false, deadlines.bodyTimeoutMs);
  const loadSet = loadParams(s, rt);
  const paramSets: ParamValues[] = [loadSet];
  const picked = Object.values(s.params).some((p) => 'pick' in p);
  if (hasRandomParams(s)) for (let i = 0; i < (picked ? RANDOM_PICKS : 1); i++) paramSets.push(randomParams(s, rt));
  const verdicts: Verdict[] = [];
  const bodies: string[] = [];
  for (const params of paramSets) {
    const req = buildRequest(s, params, rt.paths);
    try {
      const res = await fetch(req);
      const v = checkerVerdict(checker, s, params, res, `${req.method} ${req.path}`);
      verdicts.push(v);
      bodies.push(res.body.toString());
    } catch (e) {
      verdicts.push({ level: 'fail', reasons: [`${req.method} ${req.path}: ${describeError(e)}`] });
    }
  }
  if (s.response.body.deterministic && verdicts.every((v) => v.level !== 'fail')) {
    try {
      const again = await fetch(buildRequest(s, loadSet, rt.paths));
      if (again.body.toString() !== bodies[0])
        verdicts.push({
          level: 'fail',
          reasons: ['body differs between two requests; the contract asks for a deterministic body'],
        });
    } catch (e) {
      verdicts.push({ level: 'fail', reasons: [describeError(e)] });
    }
  }
  return mergeVerdicts(verdicts);
}

function checkerVerdict(
  checker: ContractChecker,
  s: Scenario,
  params: ParamValues,
  res: ResponseLike,
  label: string,
): Verdict {
  const v = checker.checkResponse(s, params, res);
  return { level: v.level, reasons: v.reasons.map((r) => `${label}: ${r}`) };
}
