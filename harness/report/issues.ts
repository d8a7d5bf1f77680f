/**
 * The findings analysis: the report's "Findings" lists contender problems only,
 * worst first (severity, then RULE_ORDER), each with the evidence in numbers and a concrete hint
 * (what to check in `contenders/<name>/`, the command that reproduces the cell, its server log). The
 * Nexus/Express/Fastify report's analysis of the POST failure (910 timeouts, 8 requests/s, root
 * cause in the body parser) is the model.
 *
 * Findings (`findIssues`), thresholds in RULES:
 * - critical: build / start failures, crashes, failed verification (incl. the concurrency burst),
 *   more than 1% failed requests (errors, timeouts, non-2xx) or any wrong body under load, a
 *   scenario collapsing (< 10% of the contender's median over its other REST scenarios, same run);
 * - major: 0.1–1% failed requests; a load run that failed; the database or the upstream mock went
 *   away during the cell (servicesLost: said as such, never as a slow or failing contender);
 * - major: RSS growth that persists (over a long window ≥ 30 s, or rising in every round of a
 *   short profile without flattening, by ≥ 1 KiB per request served or ≥ 50% of the first
 *   round's RSS: `rssGrowth`, analysis/leak.ts);
 * - minor: a few failed requests (≤ 0.1%), startup outliers (> 3 × the run's median and > 500 ms),
 *   verification warnings; tail latency only when it is the contender's: p99 > 20 × p50 and ≥ 5 ms
 *   AND that p99/p50 ≥ 3 × the median of at least 3 peers at the same load (same table). A long
 *   tail under closed-loop load at saturation alone is coordinated omission: a measurement note
 *   (`closed-loop-tail`), never a finding; open-loop tails are judged by the capacity rules;
 * - capacity cells: major when not even the lowest rate held the SLO (verdict never);
 *   minor for a low share of peak at SLO (rule `early-knee`; verdict met and the capacity < 50% of the closed-loop peak), with
 *   the step where p99 passes the SLO. A capacity that is a lower bound (verdict at-least: the
 *   open-loop driver at its limit) is a measurement note, never a finding.
 * Measurement conditions (client-bound, noisy, few trials, other runs / machines) are not
 * findings: `measurementNotes(table)` gives them per table. Variant overhead is data from the
 * table model with its interval and verdict (`variantOverheads`: "equal within 5%" only when the
 * model's TOST interval says so, "not resolved" when its 95% CI includes 0 and it is not).
 */
import type { CellResult } from '../store/results.ts';
import { DRIVER_BUSY_PCT, SERVER_BUSY_PCT } from '../lifecycle/sampler.ts';
import {
  cellFailure,
  cellFigure,
  cellLatency,
  FAILED_REQUEST_SHARE,
  median,
  type RatioEstimate,
  ratio,
} from '../analysis/stats.ts';
import { pairedRounds, type RankedTable } from '../analysis/tables.ts';
import { compare, type TableModel } from '../analysis/table-model.ts';
import { firstBreak } from '../analysis/capacity.ts';
import {
  judgeLeak,
  judgeLongWindow,
  LEAK_RULE,
  type LeakVerdict,
  leakRoundsOf,
  LONG_WINDOW_RULE,
} from '../analysis/leak.ts';
import { getProfile } from '../core/profiles.ts';
import { FOOTPRINT_FACTOR, heavyFootprintsOfCells } from '../analysis/footprint.ts';
import { fmtInt, fmtMs, oneLine, sig } from './format.ts';

export type Severity = 'critical' | 'major' | 'minor';

/** One contender problem. */
export interface Finding {
  severity: Severity;
  /** Stable rule id, e.g. 'errors-under-load', 'database-lost'. */
  rule: string;
  label: string;
  scenario: string;
  profile: string;
  runId: string;
  title: string;
  evidence: string;
}

/** Thresholds of the rules. */
export const RULES = {
  /** Failed requests (errors + timeouts + non-2xx) above this share make a cell failed (0.1%). */
  failedShare: FAILED_REQUEST_SHARE,
  /** Above this share the finding is critical (1%). */
  criticalShare: 0.01,
  /** A REST scenario below this fraction of the contender's median REST rate collapses. */
  collapseFraction: 0.1,
  /** p99/p50 above this is a long tail (when p99 ≥ tailMinP99Ms): a closed-loop measurement note… */
  tailRatio: 20,
  tailMinP99Ms: 5,
  /** …and a finding only when that p99/p50 is at least this multiple of the median of its table's peers… */
  peerTailFactor: 3,
  /** …of at least this many other contenders (same run, scenario, profile, driver, Node major). */
  minTailPeers: 3,
  /** Long-window rule (analysis/leak.ts LONG_WINDOW_RULE): RSS growing faster than this (bytes/s) and by more than rssGrowthFraction over the window. */
  rssSlopeBytesPerS: LONG_WINDOW_RULE.slopeBytesPerS,
  rssGrowthFraction: LONG_WINDOW_RULE.growthFraction,
  /** Leak rule across rounds (analysis/leak.ts LEAK_RULE): the RSS rise over the rounds, as a share of the first round's (50%)… */
  leakGrowthFraction: LEAK_RULE.growthFraction,
  /** …over at least this many rounds on one server (first, middle and last)… */
  leakMinRounds: LEAK_RULE.minRounds,
  /** …and after the middle round it still grows at least this share of its earlier growth per request served (it keeps rising). */
  leakLateRate: LEAK_RULE.lateRate,
  /** …or, over at least leakMinRequests requests served, at least this many KiB kept per 1,000 requests. */
  leakKeptKiBPer1k: LEAK_RULE.keptKiBPer1k,
  leakMinRequests: LEAK_RULE.minRequests,
  /** A window at least this long is a long profile (stress: 60 s): growth over it persists. */
  longWindowS: LONG_WINDOW_RULE.windowS,
  /** Startup above this multiple of the run's median startup (and above startupMinMs) is an outlier. */
  startupFactor: 3,
  startupMinMs: 500,
  /** A capacity below this share of the closed-loop peak (verdict met) is an early knee (50%). */
  earlyKnee: 0.5,
};

const ORDER: Record<Severity, number> = { critical: 0, major: 1, minor: 2 };

/** Within a severity, rules in this order (a rule not listed comes last): what breaks the service first. */
const RULE_ORDER = [
  'crashed',
  'wrong-bodies',
  'failed-under-load',
  'errors-under-load',
  'burst-failed',
  'verify-failed',
  'start-failed',
  'build-failed',
  'collapse',
  'capacity-never',
  'rss-growth',
  'load-failed',
  'database-lost',
  'upstream-lost',
  'tail-latency',
  'early-knee',
  'slow-startup',
  'verify-warn',
];

/** What the issue analysis reads of a scenario file (contract/scenarios.ts): the reference set and the hint's focus. */
export interface IssueScenario {
  name: string;
  /** One of the simple REST routes a collapse is judged against (`reference: true`). */
  reference?: boolean;
  /** What a failure in this scenario points at (`focus`; default the framework). */
  focus?: 'framework' | 'body-parsing' | 'http-client' | 'database';
}

/** The profile's connections (core/profiles.ts; a k6 profile's VUs), or null when unknown. */
function connectionsOf(profile: string): number | null {
  try {
    const p = getProfile(profile);
    return 'connections' in p ? p.connections : (p.vus ?? null);
  } catch {
    return null;
  }
}

/**
 * The hint of a finding, from the scenario's `focus` and the contender's tags: the thing to look
 * at (the body parser, the HTTP client's agent and its sockets against the profile's connections,
 * the pg pool), where (`contenders/<name>/`), the command that reproduces the cell and its server log.
 */
function hintFor(c: CellResult, focus: IssueScenario['focus']): string {
  const conns = connectionsOf(c.profile);
  const load = c.capacity
    ? 'open-loop load below its closed-loop peak'
    : conns
      ? `the ${c.profile} profile's ${conns} connections`
      : `the ${c.profile} profile's connections`;
  const where = `contenders/${c.contender}/`;
  const what =
    focus === 'body-parsing'
      ? `check how ${c.tags.framework} reads the request body in ${where} (a parser waiting for a stream that was already consumed hangs keep-alive requests)`
      : focus === 'http-client'
        ? `check the ${c.tags.httpClient} agent in ${where}: keep-alive on, at least ${conns ?? 'as many'} sockets for ${load}, every upstream body read or discarded`
        : focus === 'database'
          ? `check the database pool${c.tags.database ? ` (${c.tags.database})` : ''} in ${where}: its size (max) against ${load}, and the resolver's queries`
          : `check ${c.tags.framework}${c.tags.adapter ? ` on ${c.tags.adapter}` : ''} in ${where} under ${load}`;
  const rerun = `reproduce: \`npx just bench ${c.contender} --scenario ${c.scenario} --profile ${c.profile}\``;
  return `${what}; ${rerun}${c.logFile ? `; server log: ${c.logFile}` : ''}`;
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.01 ? 2 : 1)}%`;
const tailLine = (s: string) => oneLine(s, 400, 'tail');
/** Same run and load shape (the only cells whose figures may be compared). */
const sameGroup = (a: CellResult, b: CellResult) =>
  a.runId === b.runId && a.profile === b.profile && a.driver === b.driver && a.node.major === b.node.major;

/** Options of findIssues. */
export interface FindOptions {
  /** Each cell's trial records (the store's trials/ files), keyed by `trialKey(cell)`: RSS growth is judged across them. */
  trials?: ReadonlyMap<string, readonly CellResult[]>;
  /** The scenario files' facts (reference set, focus); without them no collapse is judged and hints name the framework. */
  scenarios?: readonly IssueScenario[];
}

/** The key of a cell's trials in FindOptions.trials: run id and cell id (cell ids repeat across runs). */
export function trialKey(c: Pick<CellResult, 'runId' | 'cellId'>): string {
  return `${c.runId}/${c.cellId}`;
}

/** Adds one finding of cell `c`. */
type Add = (severity: Severity, rule: string, title: string, evidence: string) => void;

/** The finding of a cell that did not get measured or broke (its status); true when nothing else applies. */
function statusFindings(c: CellResult, add: Add, hint: string): boolean {
  const tail = c.failure?.logTail ? ` Log tail: ${tailLine(c.failure.logTail)}` : '';
  const reason = c.failure?.reason ?? '';
  switch (c.status) {
    case 'build-failed':
      add(
        'critical',
        'build-failed',
        'build failed',
        `${reason}. Compiler output: ${tailLine(c.failure?.logTail ?? '')}`,
      );
      return true;
    case 'start-failed':
      add('critical', 'start-failed', 'failed to start', `${reason}.${tail}`);
      return true;
    case 'crashed':
      add('critical', 'crashed', 'crashed under load', `${reason}.${tail}`);
      return false;
    case 'error':
      add('major', 'load-failed', 'load run failed', `${reason}.${tail}`);
      return true;
    case 'load-failed':
      add('critical', 'failed-under-load', 'failed under load (not ranked)', `${reason}; ${hint}`);
      return true;
    case 'skipped':
    case 'unsupported':
      return true; // not the contender's fault: listed under its table
    case 'verify-failed': {
      const burstRecord = (c as CellResult & { burst?: { failed?: number } }).burst;
      const reasons = [reason, ...(c.verification?.reasons ?? [])];
      const burst = (burstRecord?.failed ?? 0) > 0 || reasons.some((x) => /concurrency burst/i.test(x));
      add(
        'critical',
        burst ? 'burst-failed' : 'verify-failed',
        burst ? 'failed the concurrency burst (not measured)' : 'verification failed (not measured)',
        reasons.filter(Boolean).join('; '),
      );
      return true;
    }
    default:
      return false;
  }
}

/** Errors and wrong bodies in the cell's own load record (cells written before `load-failed` existed). */
function loadFindings(c: CellResult, add: Add, hint: string): void {
  const l = c.load;
  if (!l) return;
  const bad = l.errors + l.timeouts + l.non2xx;
  if (bad > 0) {
    const all = Math.max(1, l.requests.total + l.errors + l.timeouts);
    const share = bad / all;
    add(
      share > RULES.criticalShare ? 'critical' : share > RULES.failedShare ? 'major' : 'minor',
      'errors-under-load',
      share > RULES.failedShare ? 'errors under load (cell failed, not ranked)' : 'occasional errors under load',
      `${l.timeouts} timeouts, ${l.errors} errors, ${l.non2xx} non-2xx of ${all} requests (${pct(share)} failed) at ${Math.round(cellFigure(c))} req/s; ${hint}`,
    );
  }
  if (l.bodyChecks.mismatched > 0)
    add(
      'critical',
      'wrong-bodies',
      'wrong bodies under load (cell failed, not ranked)',
      `${l.bodyChecks.mismatched} of ${l.bodyChecks.sampled} checked responses broke the contract; first: ${l.bodyChecks.firstMismatch ?? '(not recorded)'}`,
    );
}

/** A capacity search that never held the SLO (major). */
function neverFinding(c: CellResult, add: Add, hint: string): void {
  const cap = c.capacity;
  if (!cap || cap.rps || cap.verdict !== 'never') return;
  const low = [...cap.steps].sort((a, b) => a.rate - b.rate)[0];
  const slo = sig(cap.sloP99Ms);
  add(
    'major',
    'capacity-never',
    `never held p99 ≤ ${slo} ms (no sustainable rate, not ranked)`,
    `${cap.never} of ${cap.searches} searches found no open-loop rate with p99 ≤ ${slo} ms (closed-loop peak ${fmtInt(cap.peakRps.figure)} req/s, run ${c.runId})${low ? `; lowest step ${fmtInt(low.rate)} req/s → p99 ${fmtMs(sig(low.latencyMs.p99))} ms${low.latencyMs.p99 > cap.sloP99Ms ? '' : ` (${low.reason || 'passed'})`}` : ''}; ${hint}`,
  );
}

/**
 * A low share of peak at SLO (rule id `early-knee`, after the measure's earlier name): capacity at the SLO
 * under RULES.earlyKnee of the closed-loop peak (minor).
 */
function earlyKneeFinding(c: CellResult, add: Add, hint: string): void {
  const cap = c.capacity;
  if (!cap?.rps || cap.verdict !== 'met' || cap.knee === null || cap.knee >= RULES.earlyKnee) return;
  const slo = sig(cap.sloP99Ms);
  const brk = firstBreak(cap.steps, cap.sloP99Ms);
  const where = !brk
    ? ''
    : brk.latencyMs.p99 > cap.sloP99Ms
      ? `: p99 passes ${slo} ms from about ${fmtInt(brk.rate)} req/s (step ${fmtInt(brk.rate)} req/s → p99 ${fmtMs(sig(brk.latencyMs.p99))} ms)`
      : `: the objective fails from about ${fmtInt(brk.rate)} req/s (step ${fmtInt(brk.rate)} req/s: ${brk.reason})`;
  add(
    'minor',
    'early-knee',
    `low share of peak at SLO: the capacity at p99 ≤ ${slo} ms is ${Math.round(cap.knee * 100)}% of the closed-loop peak`,
    `\`${c.label}\`'s capacity at p99 ≤ ${slo} ms is ${Math.round(cap.knee * 100)}% of its closed-loop peak (${fmtInt(cap.rps.figure)} of ${fmtInt(cap.peakRps.figure)} req/s, run ${c.runId})${where}; queueing sets in long before the peak: ${hint}`,
  );
}

/** A reference scenario collapsing against the same contender's other reference scenarios (same run). */
function collapseFinding(c: CellResult, healthy: CellResult[], reference: Set<string>, add: Add, hint: string): void {
  if (!reference.has(c.scenario)) return;
  const others = healthy
    .filter((o) => o.label === c.label && o !== c && sameGroup(o, c) && reference.has(o.scenario))
    .map(cellFigure);
  if (others.length < 2) return;
  const ref = median(others);
  const frac = cellFigure(c) / ref;
  if (frac < RULES.collapseFraction)
    add(
      'critical',
      'collapse',
      'scenario collapses',
      `${Math.round(cellFigure(c))} req/s is ${frac.toFixed(2)}× the median of its other scenarios (${Math.round(ref)} req/s); ${hint}`,
    );
}

/**
 * The tail shape of a closed-loop cell, p99 ÷ p50 (null for capacity cells, cells without
 * latency, and a p50 of 0). Closed-loop load holds every connection busy, so at saturation the
 * driver's queue is in every latency (coordinated omission): a long tail alone is a measurement
 * condition, compared only against peers measured at the same load.
 */
function tailShape(c: CellResult): { p50: number; p99: number; shape: number } | null {
  const lat = c.capacity ? null : cellLatency(c);
  return lat && lat.p50 > 0 ? { p50: lat.p50, p99: lat.p99, shape: lat.p99 / lat.p50 } : null;
}

/**
 * Tail latency that is the contender's (minor): in one same-run table (scenario, profile, driver,
 * Node major: the same connections), p99 ≥ RULES.tailMinP99Ms, p99 over RULES.tailRatio × p50,
 * and that tail shape at least RULES.peerTailFactor × the median shape of at least
 * RULES.minTailPeers other contenders of the table. Said with the numbers of both.
 */
function peerTailFindings(
  healthy: CellResult[],
  out: Finding[],
  focusOf: (c: CellResult) => IssueScenario['focus'],
): void {
  const groups = new Map<string, CellResult[]>();
  for (const c of healthy) {
    const k = `${c.runId}|${c.scenario}|${c.profile}|${c.driver}|${c.node.major}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (const cells of groups.values())
    for (const c of cells) {
      const x = peerTail(c, cells);
      if (!x) continue;
      const conns = connectionsOf(c.profile);
      out.push({
        severity: 'minor',
        rule: 'tail-latency',
        label: c.label,
        scenario: c.scenario,
        profile: c.profile,
        runId: c.runId,
        title: 'tail latency far above its peers at the same load',
        evidence: `p99 ${fmtMs(sig(x.p99))} ms is ${x.shape.toFixed(0)}× its p50 ${fmtMs(sig(x.p50))} ms at ${conns ? `${conns} connections` : 'the same load'} (run ${c.runId}), where the ${x.peers} other contenders of the table have a median p99 of ${x.median.toFixed(1)}× their p50 (p99 ${fmtMs(sig(x.peerP99))} ms) — GC pauses, event-loop stalls or a queue in front of ${focusOf(c) === 'http-client' ? c.tags.httpClient : 'the handler'}; ${hintFor(c, focusOf(c))}`,
      });
    }
}

/**
 * A cell's long tail against its table's other contenders (`cells`, same load), when it is the
 * contender's (see peerTailFindings); null otherwise.
 */
function peerTail(
  c: CellResult,
  cells: readonly CellResult[],
): { p50: number; p99: number; shape: number; peers: number; median: number; peerP99: number } | null {
  const t = tailShape(c);
  if (!t || t.p99 < RULES.tailMinP99Ms || t.shape <= RULES.tailRatio) return null;
  const peers = cells.flatMap((o) => (o !== c && o.label !== c.label ? [tailShape(o)] : [])).filter((x) => x !== null);
  if (peers.length < RULES.minTailPeers) return null;
  const med = median(peers.map((p) => p.shape));
  if (t.shape < RULES.peerTailFactor * med) return null;
  return { ...t, peers: peers.length, median: med, peerP99: median(peers.map((p) => p.p99)) };
}

/**
 * A long tail at saturation in a closed-loop table (p99 over RULES.tailRatio × p50 and ≥
 * RULES.tailMinP99Ms) that is not far worse than its peers': a measurement note (coordinated
 * omission), never a finding; the capacity profile measures the tail open loop.
 */
function closedLoopTailNote(table: RankedTable): MeasurementNote | null {
  const cells = table.rows.filter((r) => r.status !== 'failed').map((r) => r.cell);
  const long = table.rows.flatMap((r) => {
    const t = tailShape(r.cell);
    const mine = r.status !== 'failed' && peerTail(r.cell, cells) !== null; // a finding, not a note
    return t && !mine && t.p99 >= RULES.tailMinP99Ms && t.shape > RULES.tailRatio ? [{ label: r.label, ...t }] : [];
  });
  if (!long.length) return null;
  return {
    kind: 'closed-loop-tail',
    labels: long.map((x) => x.label),
    detail: `p99 over ${RULES.tailRatio}× p50 under closed-loop load at saturation: ${long.map((x) => `${x.label} ${fmtMs(sig(x.p99))} ms (${x.shape.toFixed(0)}×)`).join(', ')}; every connection waits in the server's queue (coordinated omission), so this is the load, not a defect: \`npx just capacity\` measures the tail open loop`,
  };
}

/** The findings of one cell (see the module comment). */
function cellFindings(
  c: CellResult,
  ctx: { healthy: CellResult[]; reference: Set<string>; opts: FindOptions },
  out: Finding[],
): void {
  const add: Add = (severity, rule, title, evidence) =>
    out.push({
      severity,
      rule,
      label: c.label,
      scenario: c.scenario,
      profile: c.profile,
      runId: c.runId,
      title,
      evidence,
    });
  const focus = ctx.opts.scenarios?.find((s) => s.name === c.scenario)?.focus;
  const hint = hintFor(c, focus);
  if (statusFindings(c, add, hint)) return;
  const lost = c.servicesLost ?? [];
  if (lost.length) {
    const db = lost.includes('database');
    const what = [db ? 'PostgreSQL' : '', lost.includes('upstream') ? 'the upstream mock' : ''].filter(Boolean);
    add(
      'major',
      db ? 'database-lost' : 'upstream-lost',
      db ? 'the database went away during the measurement' : 'the upstream mock went away during the measurement',
      `${what.join(' and ') || lost.join(', ')} stopped answering during this cell (servicesLost: ${lost.join(', ')}); its figures describe the missing service, not ${c.label}. Re-run the cell.`,
    );
    return; // no latency, collapse or error finding would be the contender's
  }
  if (c.verification?.level === 'warn')
    add('minor', 'verify-warn', 'verification warning', c.verification.reasons.join('; '));
  if (!c.load) return;
  loadFindings(c, add, hint);
  neverFinding(c, add, hint);
  if (cellFailure(c)) return;
  earlyKneeFinding(c, add, hint);
  collapseFinding(c, ctx.healthy, ctx.reference, add, hint);
  const rss = rssGrowth(c, ctx.opts.trials?.get(trialKey(c)));
  if (rss) add('major', 'rss-growth', 'RSS keeps growing (possible leak)', rss.evidence);
}

/** Startup outliers, per run (one per contender label): > RULES.startupFactor × the run's median and > RULES.startupMinMs. */
function startupFindings(cells: CellResult[], out: Finding[]): void {
  for (const runId of new Set(cells.map((c) => c.runId))) {
    const startups = new Map<string, { ms: number; cell: CellResult }>();
    for (const c of cells)
      if (c.runId === runId && c.startupMs !== null && c.status === 'ok' && c.target?.kind !== 'external') {
        const prev = startups.get(c.label);
        if (!prev || c.startupMs > prev.ms) startups.set(c.label, { ms: c.startupMs, cell: c });
      }
    if (startups.size < 3) continue;
    const med = median([...startups.values()].map((s) => s.ms));
    for (const [label, { ms, cell }] of startups)
      if (ms > RULES.startupMinMs && ms > RULES.startupFactor * med)
        out.push({
          severity: 'minor',
          rule: 'slow-startup',
          label,
          scenario: '(all)',
          profile: cell.profile,
          runId,
          title: 'slow startup',
          evidence: `up to ${Math.round(ms)} ms to answer GET /ping, ${(ms / med).toFixed(1)}× the run's median contender (${Math.round(med)} ms)`,
        });
  }
}

/**
 * A stack whose median cold start or idle RSS over the run's server processes is ≥
 * FOOTPRINT_FACTOR × node-http's (analysis/footprint.ts `heavyFootprints`), one finding per measure.
 */
function footprintFindings(cells: CellResult[], out: Finding[]): void {
  for (const h of heavyFootprintsOfCells(cells.filter((c) => c.target?.kind !== 'external'))) {
    const cell = cells.find((c) => c.runId === h.runId && h.label.startsWith(c.label));
    const unit = h.measure === 'cold start' ? 'ms' : 'MiB';
    out.push({
      severity: 'minor',
      rule: 'heavy-footprint',
      label: h.label,
      scenario: '(all)',
      profile: cell?.profile ?? '',
      runId: h.runId,
      title: h.measure === 'cold start' ? 'slow cold start' : 'large idle memory',
      evidence: `${h.measure} ${Math.round(h.value)} ${unit}, ${h.ratio.toFixed(1)}× node-http's ${Math.round(h.baseline)} ${unit} (median over the run's server processes; ${FOOTPRINT_FACTOR}× or more is flagged)`,
    });
  }
}

/**
 * Every contender problem in the given cells, worst first: by severity, then by rule (RULE_ORDER:
 * what breaks the service before what slows it), then contender, then scenario.
 */
export function findIssues(cells: CellResult[], opts: FindOptions = {}): Finding[] {
  const out: Finding[] = [];
  const ctx = {
    healthy: cells.filter((c) => !cellFailure(c) && !(c.servicesLost ?? []).length),
    reference: new Set((opts.scenarios ?? []).filter((s) => s.reference).map((s) => s.name)),
    opts,
  };
  for (const c of cells) cellFindings(c, ctx, out);
  const focusOf = (c: CellResult) => opts.scenarios?.find((s) => s.name === c.scenario)?.focus;
  peerTailFindings(
    ctx.healthy.filter((c) => c.load),
    out,
    focusOf,
  );
  startupFindings(cells, out);
  footprintFindings(cells, out);
  const rank = (rule: string) => (RULE_ORDER.indexOf(rule) + RULE_ORDER.length + 1) % (RULE_ORDER.length + 1);
  return out.sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] ||
      rank(a.rule) - rank(b.rule) ||
      a.label.localeCompare(b.label) ||
      a.scenario.localeCompare(b.scenario),
  );
}

/**
 * How many of `cells` the leak rule could judge: a healthy cell with a load and resources whose
 * window is long (≥ RULES.longWindowS), or whose rounds on one server in `trials` (keyed by
 * `trialKey`) give the rule enough evidence (analysis/leak.ts `judgeLeak`: 3 or more rounds and
 * enough requests served, or a leak found). The default `quick` profile measures 2 solo rounds per
 * server, so its cells are not judged: the report says so rather than let "no leak found" read as
 * "checked". `{ checked, total }`, counts of cells, and `notJudged`: each cell not judged with why.
 */
export function leakCoverage(
  cells: readonly CellResult[],
  trials: ReadonlyMap<string, readonly CellResult[]> = new Map(),
): { checked: number; total: number; notJudged: { cell: string; why: string }[] } {
  const judged = cells.filter((c) => !cellFailure(c) && c.load && c.resources && !(c.servicesLost ?? []).length);
  const notJudged: { cell: string; why: string }[] = [];
  for (const c of judged) {
    if ((c.load?.durationS ?? 0) >= RULES.longWindowS) continue;
    const v = leakAcrossRounds(trials.get(trialKey(c)) ?? []);
    if (v.kind === 'not-judged') notJudged.push({ cell: `\`${c.label}\` ${c.scenario} (${c.profile})`, why: v.why });
  }
  return { checked: judged.length - notJudged.length, total: judged.length, notJudged };
}

/**
 * RSS growth that persists: over a long window (≥ RULES.longWindowS; the second-half slope when
 * recorded, else the whole window's), or across the rounds of one server (`acrossRounds`). Growth
 * within one short window (pools and JIT filling, heap before GC settles) is not a finding. Null
 * when it does not persist.
 */
export function rssGrowth(
  c: CellResult,
  trials: readonly CellResult[] = [],
): { long: boolean; evidence: string } | null {
  const r = c.resources;
  const l = c.load;
  if (!r || !l) return null;
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  const g = judgeLongWindow(r, l.durationS);
  if (g)
    return {
      long: true,
      evidence: `+${mib(g.slopeBytesPerS)} MiB/s over ${g.secondHalf ? 'the second half of ' : ''}a ${l.durationS.toFixed(0)} s window (avg ${mib(r.server.rssBytesAvg)} MiB, peak ${mib(r.server.rssBytesPeak)} MiB)`,
    };
  return acrossRounds(trials);
}

/**
 * The leak rule of the short profiles over one cell's trials (analysis/leak.ts `judgeLeak`: the
 * rounds on one server, in round order), as a finding's evidence, or null when it found no leak
 * or could not judge (leakCoverage says which cells it could not judge).
 */
function acrossRounds(trials: readonly CellResult[]): { long: boolean; evidence: string } | null {
  const v = leakAcrossRounds(trials);
  if (v.kind !== 'leak') return null;
  const first = v.rss[0] ?? 0;
  const perK = v.keptKiBPer1k !== null ? ` — about ${v.keptKiBPer1k.toFixed(0)} KiB per 1,000 requests served` : '';
  const mib = (b: number) => (b / 2 ** 20).toFixed(0);
  return {
    long: false,
    evidence: `RSS rose in every one of its ${v.rss.length} rounds on the same server: ${v.rss.map(mib).join(' → ')} MiB (+${Math.round((100 * v.riseBytes) / first)}%)${perK}; heap growth while warming up flattens, this does not. Run the stress profile (60 s windows) or take a heap snapshot to confirm the leak`,
  };
}

/** The leak rule's verdict on one cell's trials (analysis/leak.ts `leakRoundsOf`, `judgeLeak`). */
function leakAcrossRounds(trials: readonly CellResult[]): LeakVerdict {
  return judgeLeak(leakRoundsOf(trials));
}

/** A measurement condition of a table: not a contender problem; said once per table. */
export interface MeasurementNote {
  kind:
    | 'client-bound'
    | 'noisy'
    | 'few-trials'
    | 'other-runs'
    | 'other-machines'
    | 'no-baseline'
    | 'services-lost'
    | 'paused-failures'
    | 'capacity-lower-bound'
    | 'closed-loop-tail'
    | 'estimators-disagree';
  /** Rows it concerns (labels); empty for table-wide notes. */
  labels: string[];
  /** Numbers behind it (e.g. driver CPU %, spread), one short clause. */
  detail: string;
}

/** Why one row is client-bound: the driver's CPU, or the server's idle CPU in a closed-loop window. */
function clientBoundDetail(r: RankedTable['rows'][number]): string {
  const res = r.cell.resources;
  if (!res) return r.label;
  const pct = (x: number) => `${x.toFixed(0)}%`;
  return res.clientBoundBy === 'server-idle'
    ? `${r.label}: the server used ${pct(res.server.cpuPctAvg)} of its core (below ${SERVER_BUSY_PCT}%) while the driver kept every connection busy (driver ${pct(res.client.cpuPctAvg)})`
    : `${r.label}: the load driver used ${pct(res.client.cpuPctAvg)} of its core (≥ ${DRIVER_BUSY_PCT}%)`;
}

/**
 * The measurement notes of one table: client-bound rows (their figure is a lower bound), noisy
 * rows (trials > 10% apart), rows with fewer than 5 trials (not ranked), rows from other runs,
 * a missing baseline, lost services, capacities that are lower bounds (verdict at-least: the
 * open-loop driver reached its limit), rows whose solo requests/s ratio and interleaved ratio to
 * the baseline disagree beyond their 95% intervals (tables.ts RowFlags.estimatorGap), and — given
 * every table — the same group measured on other machines (shown in their own tables).
 */
export function measurementNotes(table: RankedTable, allTables: RankedTable[] = []): MeasurementNote[] {
  const notes: MeasurementNote[] = [];
  const bound = table.rows.filter((r) => r.flags.clientBound);
  if (bound.length)
    notes.push({
      kind: 'client-bound',
      labels: bound.map((r) => r.label),
      detail: `${bound.map(clientBoundDetail).join('; ')}; their figures are lower bounds`,
    });
  const atLeast = table.rows.filter((r) => r.cell.capacity?.verdict === 'at-least');
  if (atLeast.length) {
    const drivers = [...new Set(atLeast.flatMap((r) => (r.cell.capacity ? [r.cell.capacity.driver] : [])))].join('/');
    notes.push({
      kind: 'capacity-lower-bound',
      labels: atLeast.map((r) => r.label),
      // A cell is "≥" only when no search bracketed its capacity (runs without `bracketed`: any search at the driver's limit).
      detail: atLeast.every((r) => r.cell.capacity?.bracketed === undefined)
        ? `the open-loop driver (${drivers}) reached its limit: these capacities are lower bounds`
        : atLeast.every((r) => r.cell.capacity?.heldAbove)
          ? `other searches held more than the bracketed figure: these capacities are lower bounds over every search`
          : `no search bracketed the capacity (the open-loop driver (${drivers}) at its limit, or no failure up to 1.5 × the median peak)${atLeast.some((r) => r.cell.capacity?.heldAbove) ? ', or other searches held more than the bracketed figure' : ''}: these capacities are lower bounds`,
    });
  }
  const noisy = table.rows.filter((r) => r.flags.noisy);
  if (noisy.length)
    notes.push({
      kind: 'noisy',
      labels: noisy.map((r) => r.label),
      detail: noisy.some((r) => pairedRounds(r.cell))
        ? `interleaved rounds that disagree much more than the table's other rows (the model keeps their own variance, F test at 1%): ${noisy.map((r) => r.label).join(', ')}`
        : `trials more than 10% apart: ${noisy.map((r) => `${r.label} ${pct(r.cell.stats?.spread ?? 0)}`).join(', ')}`,
    });
  const gaps = table.rows.filter((r) => r.flags.estimatorGap);
  if (gaps.length)
    notes.push({
      kind: 'estimators-disagree',
      labels: gaps.map((r) => r.label),
      detail: `the solo windows' requests/s ratio to ${table.baseline} and the interleaved rounds' ratio (requests per CPU-second, the "% of baseline" column) disagree beyond their 95% intervals: ${gaps.map((r) => `${r.label} ${gapText(r.flags.estimatorGap)}`).join(', ')}`,
    });
  const tail = closedLoopTailNote(table);
  if (tail) notes.push(tail);
  const few = table.rows.filter((r) => r.notRanked?.reason === 'few-trials');
  if (few.length)
    notes.push({
      kind: 'few-trials',
      labels: few.map((r) => r.label),
      detail: `fewer than 5 trials, not ranked: ${few.map((r) => `${r.label} (${r.trials})`).join(', ')}`,
    });
  const lost = table.rows.filter((r) => r.flags.servicesLost.length);
  if (lost.length)
    notes.push({
      kind: 'services-lost',
      labels: lost.map((r) => r.label),
      detail: `a service went away during: ${lost.map((r) => `${r.label} (${r.flags.servicesLost.join(', ')})`).join(', ')}`,
    });
  const paused = table.rows.filter((r) => r.cell.pausedFailures);
  if (paused.length)
    notes.push({
      kind: 'paused-failures',
      labels: paused.map((r) => r.label),
      detail: `requests failed only in the interleaved rounds, where the server is paused for the other servers' slices (not counted against it; its solo rounds judge it): ${paused
        .map((r) => {
          const p = r.cell.pausedFailures;
          return p ? `${r.label} ${fmtInt(p.failed)} of ${fmtInt(p.requests)}` : r.label;
        })
        .join(', ')}`,
    });
  if (!table.baselineRow)
    notes.push({
      kind: 'no-baseline',
      labels: [],
      detail: `run ${table.runId} has no ${table.baseline} cell here: no ratios`,
    });
  if (table.otherRuns.length)
    notes.push({
      kind: 'other-runs',
      labels: table.otherRuns.map((r) => r.label),
      detail: `${table.otherRuns.length} row(s) from other runs (${[...new Set(table.otherRuns.map((r) => r.runId))].join(', ')}), shown only as ratios to their own run's baseline`,
    });
  const elsewhere = allTables.filter(
    (t) =>
      t !== table &&
      t.key.scenario === table.key.scenario &&
      t.key.profile === table.key.profile &&
      t.key.driver === table.key.driver &&
      t.key.nodeMajor === table.key.nodeMajor &&
      t.key.machine.label !== table.key.machine.label,
  );
  if (elsewhere.length)
    notes.push({
      kind: 'other-machines',
      labels: [],
      detail: `also measured on ${elsewhere.map((t) => t.key.machine.label).join('; ')}: separate tables`,
    });
  return notes;
}

/** "6.1% solo vs 9.0% interleaved (×0.68)" of a row's estimator gap. */
function gapText(g: RankedTable['rows'][number]['flags']['estimatorGap']): string {
  if (!g) return '';
  const p = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
  return `${p(g.solo.ratio)} solo vs ${p(g.interleaved.ratio)} interleaved (×${g.factor.toFixed(2)})`;
}

/** A variant's cost against its own contender without the variant (same run). */
export interface VariantOverhead {
  label: string;
  base: string;
  scenario: string;
  profile: string;
  runId: string;
  /**
   * Extra time per request = base/variant − 1 (0.1 = 10% more time per request): of requests per
   * CPU-second when it comes from the table model (`source` 'model'), else of the solo trials'
   * requests/s.
   */
  overhead: number;
  /** Interval of `overhead` (contains it); null without one. */
  interval: [number, number] | null;
  kind: RatioEstimate['kind'];
  /** 'model': the table's model (its 95% CI, TOST for "equal within 5%"); 'trials': the solo trials paired by round. */
  source: 'model' | 'trials';
  /**
   * The model's verdict of the base against the variant: 'overhead' / 'less' when its 95% CI
   * excludes 0, 'equal within 5%' when the TOST interval lies within ±5%, else 'not resolved'.
   * Without a model: 'overhead' / 'less' only from a 95% CI of ≥ 5 trials, else 'not resolved'.
   */
  verdict: 'overhead' | 'less' | 'equal within 5%' | 'not resolved';
  /** The TOST (90%) interval of `overhead` behind 'equal within 5%'; null otherwise. */
  tost: [number, number] | null;
  /** true when the verdict is 'overhead' or 'less' (the interval excludes 0). */
  measurable: boolean;
}

/**
 * Every variant's overhead over its base contender, same run and load shape; failed cells are
 * skipped. With the table's fitted model (`fit`, analysis/tables.ts RankedTable.fit) holding both
 * rows, the overhead, its 95% CI and its verdict come from the model (table-model.ts `compare`:
 * base vs variant); otherwise from the solo trials' paired ratio, which never says "no
 * measurable overhead" (2 trials give no 95% CI): only 'not resolved'.
 */
export function variantOverheads(cells: CellResult[], fit: TableModel | null = null): VariantOverhead[] {
  const ok = cells.filter((c) => !cellFailure(c) && !(c.servicesLost ?? []).length);
  const out: VariantOverhead[] = [];
  for (const v of ok.filter((c) => c.variant)) {
    const base = ok.find(
      (b) => b.contender === v.contender && !b.variant && b.scenario === v.scenario && sameGroup(b, v),
    );
    if (!base) continue;
    const head = { label: v.label, base: base.label, scenario: v.scenario, profile: v.profile, runId: v.runId };
    const inModel = fit && [base.label, v.label].every((l) => fit.rows.some((r) => r.name === l));
    if (fit && inModel) {
      const c = compare(fit, base.label, v.label);
      const verdict = c.verdict === 'faster' ? 'overhead' : c.verdict === 'slower' ? 'less' : c.verdict;
      out.push({
        ...head,
        overhead: c.ratio - 1,
        interval: [c.ci[0] - 1, c.ci[1] - 1],
        kind: 'ci95',
        source: 'model',
        verdict,
        tost: verdict === 'equal within 5%' ? [c.tostCi[0] - 1, c.tostCi[1] - 1] : null,
        measurable: verdict === 'overhead' || verdict === 'less',
      });
      continue;
    }
    const r = ratio(base, v);
    const interval: [number, number] | null = r.interval ? [r.interval[0] - 1, r.interval[1] - 1] : null;
    const measurable = r.kind === 'ci95' && interval !== null && (interval[0] > 0 || interval[1] < 0);
    out.push({
      ...head,
      overhead: r.figure - 1,
      interval,
      kind: r.kind,
      source: 'trials',
      verdict: measurable ? (r.figure > 1 ? 'overhead' : 'less') : 'not resolved',
      tost: null,
      measurable,
    });
  }
  return out;
}

/**
 * "+12.3% time per request (95% interval +8.1% … +16.5%)", "equal within 5% (90% interval −2.0% …
 * +3.1%)" or "not resolved, +1.0% (95% interval −4.0% … +6.2%)": the verdict of `variantOverheads`.
 */
export function describeOverhead(o: VariantOverhead): string {
  const s = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
  const name = o.kind === 'ci95' ? '95% interval' : 'range';
  const iv = o.interval ? `${name} ${s(o.interval[0])} … ${s(o.interval[1])}` : 'no interval: one trial';
  if (o.verdict === 'equal within 5%' && o.tost)
    return `equal within 5% (90% interval ${s(o.tost[0])} … ${s(o.tost[1])})`;
  if (o.verdict === 'not resolved') return `not resolved, ${s(o.overhead)} (${iv})`;
  return o.overhead > 0
    ? `${s(o.overhead)} time per request (${iv})`
    : `${s(-o.overhead)} less time per request than without the variant (${iv})`;
}
