/**
 * The findings analysis: the report's "Findings" lists contender problems only,
 * worst first (severity, then RULE_ORDER), each with the evidence in numbers and a concrete hint
 * (what to check in `contenders/<name>/`, the command that reproduces the cell, its server log). The
 * Nexus/Express/Fastify report's analysis of the POST failure (910 timeouts, 8 requests/s, root
 * cause in the body parser) is the model.
 *
 * Findings (`findIssues`), thresholds in RULES (finding-rules.ts):
 * - critical: build / start failures, crashes, failed verification (incl. the concurrency burst),
 *   more than 1% failed requests (errors, timeouts, non-2xx) or any wrong body under load, a
 *   scenario collapsing (< 10% of the contender's median over its other REST scenarios, same run);
 * - major: 0.1–1% failed requests; a load run that failed; the database or the upstream mock went
 *   away during the cell (servicesLost: said as such, never as a slow or failing contender);
 * - major: RSS growth that persists (over a long window ≥ 30 s, or rising in every round of a
 *   short profile without flattening, by ≥ 1 KiB per request served or ≥ 50% of the first
 *   round's RSS: leak-findings.ts `rssGrowth`, analysis/leak.ts);
 * - minor: a few failed requests (≤ 0.1%), startup outliers (> 3 × the run's median and > 500 ms),
 *   verification warnings; tail latency only when it is the contender's: p99 > 20 × p50 and ≥ 5 ms
 *   AND that p99/p50 ≥ 3 × the median of at least 3 peers at the same load (same table;
 *   tail-findings.ts). A long tail under closed-loop load at saturation alone is coordinated
 *   omission: a measurement note (`closed-loop-tail`), never a finding; open-loop tails are judged
 *   by the capacity rules;
 * - capacity cells: major when not even the lowest rate held the SLO (verdict never);
 *   minor for a low share of peak at SLO (rule `early-knee`; verdict met and the capacity < 50% of the closed-loop peak), with
 *   the step where p99 passes the SLO. A capacity that is a lower bound (verdict at-least: the
 *   open-loop driver at its limit) is a measurement note, never a finding.
 * Measurement conditions (client-bound, noisy, few trials, other runs / machines) are not
 * findings: measurement-notes.ts `measurementNotes(table)` gives them per table. Variant overhead
 * is data from the table model with its interval and verdict (variant-overhead.ts).
 */
import type { CellResult } from '../store/results.ts';
import { cellFailure, cellFigure, median } from '../analysis/stats.ts';
import { firstBreak } from '../analysis/capacity.ts';
import { FOOTPRINT_FACTOR, heavyFootprintsOfCells } from '../analysis/footprint.ts';
import { fmtInt, fmtMs, fmtPct, oneLine, sig } from '../core/format.ts';
import { type Finding, hintFor, type IssueScenario, pct, RULES, type Severity, sameGroup } from './finding-rules.ts';
import { rssGrowth, trialKey } from './leak-findings.ts';
import { peerTailFindings } from './tail-findings.ts';

const ORDER: Record<Severity, number> = { critical: 0, major: 1, minor: 2 };

/** Within a severity, rules in this order (a rule not listed comes last): what breaks the service first. */
const RULE_ORDER = [
  'uncontained',
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

const tailLine = (s: string) => oneLine(s, 400, 'tail');

/** Options of findIssues. */
export interface FindOptions {
  /** Each cell's trial records (the store's trials/ files), keyed by `trialKey(cell)`: RSS growth is judged across them. */
  trials?: ReadonlyMap<string, readonly CellResult[]>;
  /** The scenario files' facts (reference set, focus); without them no collapse is judged and hints name the framework. */
  scenarios?: readonly IssueScenario[];
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
    case 'uncontained':
      add('critical', 'uncontained', 'escaped its containment (not ranked)', `${reason}.${tail}`);
      return true;
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
  const lowest = low
    ? `; lowest step ${fmtInt(low.rate)} req/s → p99 ${fmtMs(sig(low.latencyMs.p99))} ms${low.latencyMs.p99 > cap.sloP99Ms ? '' : ` (${low.reason || 'passed'})`}`
    : '';
  const found = `${cap.never} of ${cap.searches} searches found no open-loop rate with p99 ≤ ${slo} ms`;
  add(
    'major',
    'capacity-never',
    `never held p99 ≤ ${slo} ms (no sustainable rate, not ranked)`,
    `${found} (closed-loop peak ${fmtInt(cap.peakRps.figure)} req/s, run ${c.runId})${lowest}; ${hint}`,
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
    `low share of peak at SLO: the capacity at p99 ≤ ${slo} ms is ${fmtPct(cap.knee)} of the closed-loop peak`,
    `\`${c.label}\`'s capacity at p99 ≤ ${slo} ms is ${fmtPct(cap.knee)} of its closed-loop peak (${fmtInt(cap.rps.figure)} of ${fmtInt(cap.peakRps.figure)} req/s, run ${c.runId})${where}; queueing sets in long before the peak: ${hint}`,
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
