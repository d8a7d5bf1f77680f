/**
 * The issue analysis: a rules module that turns cell results into findings, worst first. Seed
 * 003's analysis of the 'Nexus' POST failure (910 timeouts, 8 requests/s, root cause in the
 * body parser) is the model: each finding names the cell, gives the evidence in numbers, and a
 * hint specific to the contender's tags.
 *
 * Rules (thresholds in RULES): build/start failures, crashes and failed verification; errors,
 * timeouts and non-2xx under load; wrong bodies under load; a scenario collapsing against the
 * same contender's other scenarios; tail latency (p99/p50); RSS growing through the window;
 * client-bound cells; a server idle while latency is high (waiting on I/O); variant overhead;
 * HTTP-client overhead on fan-out; startup-time outliers; noisy trials.
 */
import type { CellResult } from '../store/results.ts';
import { cellRps, median } from '../analysis/stats.ts';
import { oneLine } from './format.ts';

export type Severity = 'critical' | 'major' | 'minor' | 'info';

export interface Finding {
  severity: Severity;
  label: string;
  scenario: string;
  profile: string;
  title: string;
  evidence: string;
}

/** Thresholds of the rules. */
export const RULES = {
  /** A REST scenario below this fraction of the contender's median REST rate collapses (seed 003: POST at 0.01×). */
  collapseFraction: 0.1,
  /** p99/p50 above this is a tail-latency finding (when p99 ≥ tailMinP99Ms). */
  tailRatio: 20,
  tailMinP99Ms: 5,
  /** RSS growing faster than this (bytes/s) and by more than rssGrowthFraction over the window: possible leak. */
  rssSlopeBytesPerS: 1024 * 1024,
  rssGrowthFraction: 0.2,
  /** Server CPU below this % of its cores with p50 above ioWaitP50Ms: waiting on I/O. */
  ioWaitCpuPct: 50,
  ioWaitP50Ms: 2,
  /** Startup above this multiple of the median startup (and above startupMinMs) is an outlier. */
  startupFactor: 3,
  startupMinMs: 500,
};

/** Findings on another Node major than the harness's own name it beside the profile. */
const CURRENT_NODE = Number(process.versions.node.split('.')[0]);
const ORDER: Record<Severity, number> = { critical: 0, major: 1, minor: 2, info: 3 };
const REST_REFERENCE = ['ping', 'json', 'echo', 'users', 'post'];

function hintFor(c: CellResult): string {
  if (c.scenario === 'post')
    return `look at how ${c.tags.framework} reads and parses the request body (a parser waiting for a stream that was already consumed hangs keep-alive requests)`;
  if (c.scenario === 'fanout')
    return `look at the fan-out client (${c.tags.httpClient}): pool size, keep-alive, and whether every body is read`;
  if (c.scenario.startsWith('graphql'))
    return `look at the database pool${c.tags.database ? ` (${c.tags.database})` : ''} and the resolver path`;
  return `look at ${c.tags.framework}${c.tags.adapter ? ` on ${c.tags.adapter}` : ''} under concurrency`;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** Log tails keep their end: that is where the error is. */
const tailLine = (s: string) => oneLine(s, 400, 'tail');
const sameRun = (a: CellResult, b: CellResult) =>
  a.profile === b.profile && a.driver === b.driver && a.node.major === b.node.major;

/** Every finding for the given (latest) cells, ordered by severity, then contender, then scenario. */
export function findIssues(cells: CellResult[]): Finding[] {
  const out: Finding[] = [];
  const ok = cells.filter((c) => c.status === 'ok' && c.load);
  for (const c of cells) {
    const f = (severity: Severity, title: string, evidence: string) =>
      out.push({
        severity,
        label: c.label,
        scenario: c.scenario,
        profile: c.node.major === CURRENT_NODE ? c.profile : `${c.profile}, Node ${c.node.major}`,
        title,
        evidence,
      });
    const tail = c.failure?.logTail ? ` Log tail: ${tailLine(c.failure.logTail)}` : '';
    switch (c.status) {
      case 'build-failed':
        f('critical', 'build failed', `${c.failure?.reason}. Compiler output: ${tailLine(c.failure?.logTail ?? '')}`);
        continue;
      case 'start-failed':
        f('critical', 'failed to start', `${c.failure?.reason}.${tail}`);
        continue;
      case 'crashed':
        f('critical', 'crashed under load', `${c.failure?.reason}.${tail}`);
        break;
      case 'error':
        f('major', 'load run failed', `${c.failure?.reason}.${tail}`);
        continue;
      case 'skipped':
      case 'unsupported':
        continue; // not the contender's fault: listed under its table
      case 'verify-failed':
        f('critical', 'verification failed (not measured)', c.verification?.reasons.join('; ') ?? '');
        continue;
      default:
        break;
    }
    if (c.verification?.level === 'warn') f('minor', 'verification warning', c.verification.reasons.join('; '));
    const l = c.load;
    if (!l) continue;
    const bad = l.errors + l.timeouts + l.non2xx;
    if (bad > 0) {
      const good = l.requests.total - l.non2xx;
      const share = bad / Math.max(1, bad + good);
      f(
        share > 0.01 ? 'critical' : 'major',
        'errors under load',
        `${l.timeouts} timeouts, ${l.errors} errors, ${l.non2xx} non-2xx against ${good} good responses (${pct(share)} failed) at ${Math.round(l.requestsPerSec.mean)} req/s; ${hintFor(c)}`,
      );
    }
    if (l.bodyChecks.mismatched > 0) {
      f(
        'critical',
        'wrong bodies under load',
        `${l.bodyChecks.mismatched} of ${l.bodyChecks.sampled} sampled responses broke the contract; first: ${l.bodyChecks.firstMismatch}`,
      );
    }
    if (c.status !== 'ok') continue;
    // A scenario collapsing against the same contender's other REST scenarios.
    if (REST_REFERENCE.includes(c.scenario)) {
      const others = ok
        .filter((o) => o.label === c.label && o !== c && sameRun(o, c) && REST_REFERENCE.includes(o.scenario))
        .map(cellRps);
      if (others.length >= 2) {
        const ref = median(others);
        const frac = cellRps(c) / ref;
        if (frac < RULES.collapseFraction)
          f(
            'critical',
            'scenario collapses',
            `${Math.round(cellRps(c))} req/s is ${frac.toFixed(2)}× the median of its other scenarios (${Math.round(ref)} req/s); ${hintFor(c)}`,
          );
      }
    }
    const lat = c.stats?.latencyMs ?? l.latencyMs;
    if (lat.p50 > 0 && lat.p99 >= RULES.tailMinP99Ms && lat.p99 / lat.p50 > RULES.tailRatio) {
      f(
        'minor',
        'tail latency',
        `p99 ${lat.p99.toFixed(1)} ms is ${(lat.p99 / lat.p50).toFixed(0)}× p50 ${lat.p50.toFixed(2)} ms (GC pauses, event-loop stalls or a queue in front of ${c.scenario === 'fanout' ? c.tags.httpClient : 'the handler'})`,
      );
    }
    const r = c.resources;
    if (r) {
      const growth = r.server.rssSlopeBytesPerS * l.durationS;
      // Without a warm-up, pools and JIT fill up inside the window: judge growth only after one (or over ≥ 10 s).
      const settled = (l.profile?.warmupS ?? 0) > 0 || l.durationS >= 10;
      if (
        settled &&
        r.server.rssSlopeBytesPerS > RULES.rssSlopeBytesPerS &&
        growth > RULES.rssGrowthFraction * r.server.rssBytesAvg
      ) {
        f(
          l.durationS >= 30 ? 'major' : 'minor',
          'RSS grows through the window (possible leak)',
          `+${(r.server.rssSlopeBytesPerS / 2 ** 20).toFixed(1)} MiB/s over ${l.durationS.toFixed(0)} s (avg ${(r.server.rssBytesAvg / 2 ** 20).toFixed(0)} MiB, peak ${(r.server.rssBytesPeak / 2 ** 20).toFixed(0)} MiB); a longer profile (stress) tells a leak from heap growth before GC settles`,
        );
      }
      if (r.clientBound)
        f(
          'minor',
          'client-bound: the figure is a lower bound',
          `the load driver used ${r.client.cpuPctAvg.toFixed(0)}% of its ${r.client.cores} core(s); the server may be faster than measured`,
        );
      if (r.server.cpuPctAvg < RULES.ioWaitCpuPct * r.server.pinnedCores && lat.p50 > RULES.ioWaitP50Ms) {
        f(
          'minor',
          'server idle while latency is high (waiting on I/O)',
          `server CPU ${r.server.cpuPctAvg.toFixed(0)}% of ${r.server.pinnedCores} core(s) with p50 ${lat.p50.toFixed(1)} ms; ${hintFor(c)}`,
        );
      }
    }
    if (c.stats?.noisy)
      f(
        'minor',
        'noisy — re-run',
        `trials disagree by ${pct(c.stats.spread)} (${c.stats.trialRps.map((x) => Math.round(x)).join(', ')} req/s)`,
      );
  }

  // Variant overhead (interceptors) and HTTP-client overhead on fan-out.
  for (const v of ok.filter((c) => c.variant)) {
    const base = ok.find(
      (b) => b.contender === v.contender && !b.variant && b.scenario === v.scenario && sameRun(b, v),
    );
    if (!base) continue;
    const over = cellRps(base) / cellRps(v) - 1;
    out.push({
      severity: 'info',
      label: v.label,
      scenario: v.scenario,
      profile: v.profile,
      title: 'variant overhead',
      evidence: `${Math.round(cellRps(v))} vs ${Math.round(cellRps(base))} req/s without the variant: ${over >= 0 ? '+' : ''}${pct(over)} time per request (p50 ${(v.stats?.latencyMs ?? v.load!.latencyMs).p50.toFixed(2)} vs ${(base.stats?.latencyMs ?? base.load!.latencyMs).p50.toFixed(2)} ms)`,
    });
  }
  const fan = ok.filter((c) => c.scenario === 'fanout' && !c.variant);
  for (const a of fan) {
    for (const b of fan) {
      if (
        a === b ||
        !sameRun(a, b) ||
        a.tags.framework !== b.tags.framework ||
        a.tags.adapter !== b.tags.adapter ||
        a.tags.httpClient === b.tags.httpClient
      )
        continue;
      if (cellRps(a) <= cellRps(b)) continue; // report each pair once, from the faster side
      out.push({
        severity: 'info',
        label: b.label,
        scenario: 'fanout',
        profile: b.profile,
        title: 'HTTP-client overhead on fan-out',
        evidence: `${b.tags.httpClient}: ${Math.round(cellRps(b))} req/s vs ${a.tags.httpClient} (\`${a.label}\`): ${Math.round(cellRps(a))} req/s, ${(cellRps(a) / cellRps(b)).toFixed(2)}× with the same ${a.tags.framework}${a.tags.adapter ? ` on ${a.tags.adapter}` : ''}`,
      });
    }
  }
  // Startup-time outliers (one per contender label).
  const startups = new Map<string, number>();
  for (const c of cells)
    if (c.startupMs !== null && c.status === 'ok')
      startups.set(c.label, Math.max(startups.get(c.label) ?? 0, c.startupMs));
  if (startups.size >= 3) {
    const med = median([...startups.values()]);
    for (const [label, ms] of startups) {
      if (ms > RULES.startupMinMs && ms > RULES.startupFactor * med) {
        const c = cells.find((x) => x.label === label)!;
        out.push({
          severity: 'minor',
          label,
          scenario: '(all)',
          profile: c.profile,
          title: 'slow startup',
          evidence: `up to ${Math.round(ms)} ms to answer GET /ping, ${(ms / med).toFixed(1)}× the median contender (${Math.round(med)} ms)`,
        });
      }
    }
  }
  return out.sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] || a.label.localeCompare(b.label) || a.scenario.localeCompare(b.scenario),
  );
}
