// The one k6 script of the bake-off. Everything it does comes from the scenario contract
// through a JSON file the harness writes (BENCH_K6_CONFIG): URL, method, headers, body, the
// k6 executor, and the expected response. No per-contender scripts.
//
// Checks mirror the harness verifier (harness/contract/verify.ts) on every `sampleEvery`-th
// iteration of each VU (none with `sampleEvery: 0`, as in the open-loop capacity steps): status,
// media type and charset, and the body (exact text, exact JSON, or the scenario's JSON Schema —
// for fan-out, each upstream item field by field). Framing (content-length / chunked) is left
// to the verifier: k6's Go client hides transfer-encoding.
// handleSummary writes the machine-readable summary with p(50), p(90), p(95), p(99) and max
// (summaryTrendStats is set: the nestjs-undici-performance report's k6 summary had no p99 without it).
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const cfg = JSON.parse(open(__ENV.BENCH_K6_CONFIG));

export const options = {
  scenarios: { main: cfg.executor },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(95)', 'p(99)'],
  discardResponseBodies: false,
};

const timeouts = new Counter('bench_timeouts');
const errors = new Counter('bench_errors');
const non2xx = new Counter('bench_non2xx');
const sampled = new Counter('bench_body_sampled');
const mismatched = new Counter('bench_body_mismatched');
let reported = false;

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

// The JSON Schema subset the scenario files use ($refs inlined by the harness).
function validate(schema, v, at) {
  if ('const' in schema && JSON.stringify(v) !== JSON.stringify(schema.const))
    return `${at} must be ${JSON.stringify(schema.const)}`;
  if (schema.type) {
    const t = typeOf(v);
    const ok = schema.type === t || (schema.type === 'number' && t === 'integer');
    if (!ok) return `${at} must be ${schema.type}`;
  }
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) return `${at} must be >= ${schema.minimum}`;
    if (schema.maximum !== undefined && v > schema.maximum) return `${at} must be <= ${schema.maximum}`;
  }
  if (typeof v === 'string') {
    if (schema.minLength !== undefined && v.length < schema.minLength) return `${at} is too short`;
    if (schema.pattern && !new RegExp(schema.pattern).test(v)) return `${at} must match ${schema.pattern}`;
  }
  if (Array.isArray(v)) {
    if (schema.minItems !== undefined && v.length < schema.minItems)
      return `${at} must have >= ${schema.minItems} items`;
    if (schema.maxItems !== undefined && v.length > schema.maxItems)
      return `${at} must have <= ${schema.maxItems} items`;
    if (schema.items)
      for (let i = 0; i < v.length; i++) {
        const e = validate(schema.items, v[i], `${at}/${i}`);
        if (e) return e;
      }
  }
  if (typeOf(v) === 'object') {
    for (const k of schema.required || []) if (!(k in v)) return `${at} must have property ${k}`;
    for (const [k, s] of Object.entries(schema.properties || {}))
      if (k in v) {
        const e = validate(s, v[k], `${at}/${k}`);
        if (e) return e;
      }
  }
  return '';
}

// Request variants: one drawn at random per iteration, checked against its own expectation.
const variants = cfg.variantExpect?.length ? cfg.variantExpect : [{ request: cfg.request, expect: cfg.expect }];

function contractProblem(res, want) {
  if (res.status !== want.status) return `status ${res.status}, expected ${want.status}`;
  const ct = res.headers['Content-Type'] || '';
  const [media, ...params] = ct.split(';').map((x) => x.trim());
  if (media.toLowerCase() !== want.contentType)
    return `content-type '${ct}', expected '${want.contentType}; charset=utf-8'`;
  const charset = params.map((p) => p.split('=')).find(([k]) => k.toLowerCase() === 'charset');
  if (charset?.[1].toLowerCase() !== 'utf-8') return `content-type '${ct}' lacks '; charset=utf-8'`;
  const body = res.body || '';
  if (want.text !== undefined) return body === want.text ? '' : `body ${JSON.stringify(body).slice(0, 120)}`;
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch (_e) {
    return `body is not JSON: ${body.slice(0, 120)}`;
  }
  if (want.graphql && parsed && typeof parsed === 'object' && 'errors' in parsed)
    return `GraphQL errors in the reply: ${body.slice(0, 120)}`;
  if (want.at) {
    for (const key of want.at.split('.')) parsed = parsed && typeof parsed === 'object' ? parsed[key] : undefined;
    if (parsed === undefined) return `nothing at ${want.at}`;
  }
  if (want.exact !== undefined)
    return JSON.stringify(sortKeys(parsed)) === JSON.stringify(sortKeys(want.exact))
      ? ''
      : `body ${body.slice(0, 120)}`;
  return validate(want.schema, parsed, '');
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.keys(v)
      .sort()
      .reduce((o, k) => {
        o[k] = sortKeys(v[k]);
        return o;
      }, {});
  return v;
}

export default function () {
  const v = variants[Math.floor(Math.random() * variants.length)];
  const r = v.request;
  const res = http.request(r.method, cfg.url + r.path, r.body === undefined ? null : r.body, {
    headers: r.headers,
    timeout: `${cfg.timeoutS}s`,
  });
  if (res.status === 0) {
    if (res.error_code === 1050) timeouts.add(1);
    else errors.add(1);
    return;
  }
  if (res.status < 200 || res.status >= 300) non2xx.add(1);
  if (cfg.sampleEvery > 0 && __ITER % cfg.sampleEvery === 0) {
    sampled.add(1);
    const problem = contractProblem(res, v.expect);
    check(res, { contract: () => problem === '' });
    if (problem) {
      mismatched.add(1);
      if (!reported) {
        reported = true;
        console.error(`BENCH_MISMATCH ${problem}`);
      }
    }
  }
}

export function handleSummary(data) {
  return { [cfg.summaryPath]: JSON.stringify(data) };
}
