/**
 * The findings' shared terms: the Finding record and its severities, the thresholds of every rule
 * (RULES, the leak rules' from analysis/leak.ts), what the rules read of a scenario file, which
 * cells may be compared (same run and load shape), and the hint of a finding (what to check in
 * `contenders/<name>/`, the command that reproduces the cell, its server log). The rules are in
 * issues.ts, tail-findings.ts, leak-findings.ts and measurement-notes.ts.
 */
import type { CellResult } from '../store/results.ts';
import { FAILED_REQUEST_SHARE } from '../analysis/stats.ts';
import { LEAK_RULE, LONG_WINDOW_RULE } from '../analysis/leak.ts';
import { getProfile } from '../core/profiles.ts';
import { fmtPct } from '../core/format.ts';

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

/** What the issue analysis reads of a scenario file (contract/scenarios.ts): the reference set and the hint's focus. */
export interface IssueScenario {
  name: string;
  /** One of the simple REST routes a collapse is judged against (`reference: true`). */
  reference?: boolean;
  /** What a failure in this scenario points at (`focus`; default the framework). */
  focus?: 'framework' | 'body-parsing' | 'http-client' | 'database';
}

/** The profile's connections (core/profiles.ts; a k6 profile's VUs), or null when unknown. */
export function connectionsOf(profile: string): number | null {
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
export function hintFor(c: CellResult, focus: IssueScenario['focus']): string {
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

/** A share as a percentage: two decimals below 1%, else one ("0.25%", "1.5%"). */
export const pct = (x: number) => fmtPct(x, x < 0.01 ? 2 : 1);

/** Same run and load shape (the only cells whose figures may be compared). */
export const sameGroup = (a: CellResult, b: CellResult) =>
  a.runId === b.runId && a.profile === b.profile && a.driver === b.driver && a.node.major === b.node.major;
