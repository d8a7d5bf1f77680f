/**
 * The leak rules (report/leak-findings.ts `rssGrowth` applies them): RSS growth over one long window
 * (`judgeLongWindow`), and across the rounds of one server for the short profiles (`judgeLeak`).
 *
 * **Long window** (LONG_WINDOW_RULE, a window of 30 s or more, e.g. the stress profile's 60 s):
 * growth over it persists when the server's RSS slope (over the window's second half when the
 * sampler recorded it, else the whole window) exceeds 1 MiB/s and, over that span, 20% of the
 * window's average RSS.
 *
 * **Across rounds**: the server stays alive for the whole group, so its RSS (the average over each
 * measured window) across the rounds, in round order, is one process over time.
 *
 * A leak rises in every round and keeps rising: after the middle round its growth per request
 * served is at least LEAK_RULE.lateRate (half) of its growth per request before it (heap growth
 * while warming up flattens instead; growth is per request, not per round, because a leak slows
 * its own server). And it is big enough, by either measure:
 * - **per request served**: at least LEAK_RULE.keptKiBPer1k (1,024 KiB kept per 1,000 requests,
 *   1 KiB per request) over at least LEAK_RULE.minRequests (30,000) requests. This does not depend
 *   on the host's speed: a slow or loaded host serves fewer requests per round, so the rise per
 *   round shrinks, the rise per request does not;
 * - **per first round**: a rise of at least LEAK_RULE.growthFraction (50%) of the first round's
 *   RSS (the earlier rule; it still catches a big leak of a slow scenario).
 *
 * "Not judged" rather than "no leak" when the evidence is too thin: fewer than LEAK_RULE.minRounds
 * rounds, rounds whose requests were not counted, or fewer than LEAK_RULE.minRequests requests
 * served across the rounds without the 50% rise (below that, a leak of 1 KiB per request adds less
 * than 30 MiB, and warm-up growth per request cannot be told from one).
 *
 * Calibration (the committed trial files, 282 cells with 3 or more solo rounds): the rising,
 * persistent cells over at least 30,000 requests keep at most 539 KiB per 1,000 requests
 * (nestjs-express-axios users; docs/measurements.md); under 30,000 requests warm-up
 * growth of heavy scenarios reaches 21,561 KiB per 1,000 (nestjs-graphql-apollo
 * graphql-introspection at 3,784 requests), so fewer requests are not judged
 * per request. The `leaky` fixture keeps 4 KiB per request: about 4,200 KiB per 1,000.
 * The 50% rule: calibrated on three bake-offs (docs/decisions/0009-leak-rule-per-request.md)
 * (the largest steady real rise was +39%, flattening).
 */

import type { ResourceUse } from '../lifecycle/sampler.ts';
import type { CellResult } from '../store/results.ts';

/** Thresholds of the long-window rule (see the module comment). */
export const LONG_WINDOW_RULE = {
  /** A window at least this long (s) is a long profile (stress: 60 s): growth over it persists. */
  windowS: 30,
  /** RSS growing faster than this (bytes/s)… */
  slopeBytesPerS: 1024 * 1024,
  /** …and by more than this share of the window's average RSS over the span of the slope. */
  growthFraction: 0.2,
};

/** Growth found by the long-window rule: the RSS slope it judged (bytes/s), and whether it is the second half's. */
export interface LongWindowGrowth {
  slopeBytesPerS: number;
  secondHalf: boolean;
}

/** The server's RSS slope over the second half of the window, when the sampler recorded it (bytes/s). */
function secondHalfSlope(r: ResourceUse): number | null {
  const v = (r.server as ResourceUse['server'] & { rssSlopeSecondHalfBytesPerS?: number }).rssSlopeSecondHalfBytesPerS;
  return typeof v === 'number' ? v : null;
}

/**
 * The long-window rule over one server's resource record `r` of a window of `durationS` seconds
 * (see the module comment): the growth it found, or null when the window is shorter than
 * LONG_WINDOW_RULE.windowS or the RSS does not grow enough.
 */
export function judgeLongWindow(r: ResourceUse, durationS: number): LongWindowGrowth | null {
  if (durationS < LONG_WINDOW_RULE.windowS) return null;
  const half = secondHalfSlope(r);
  const slope = half ?? r.server.rssSlopeBytesPerS;
  const windowS = half !== null ? durationS / 2 : durationS;
  const grows =
    slope > LONG_WINDOW_RULE.slopeBytesPerS && slope * windowS > LONG_WINDOW_RULE.growthFraction * r.server.rssBytesAvg;
  return grows ? { slopeBytesPerS: slope, secondHalf: half !== null } : null;
}

/** Thresholds of the leak rule across rounds (see the module comment). */
export const LEAK_RULE = {
  /** Rounds on one server the rule needs (first, middle and last). */
  minRounds: 3,
  /** After the middle round it still grows at least this share of its earlier growth per request. */
  lateRate: 0.5,
  /** A leak by the per-request measure keeps at least this many KiB per 1,000 requests served… */
  keptKiBPer1k: 1024,
  /** …over at least this many requests served (from the middle of the first window to the middle of the last). */
  minRequests: 30_000,
  /** A leak by the first-round measure: a rise of at least this share of the first round's RSS. */
  growthFraction: 0.5,
};

/** One measured round of one server: its average RSS over the window (bytes) and the requests it served (0: not counted). */
export interface LeakRound {
  rssBytes: number;
  requests: number;
}

/** What the rule found: a leak (with its figures), no leak, or not judged with the reason. */
export type LeakVerdict =
  | {
      kind: 'leak' | 'none';
      /** RSS of each round, bytes. */
      rss: number[];
      /** Last round's RSS − first round's, bytes. */
      riseBytes: number;
      /** Requests served from the middle of the first window to the middle of the last (null: not counted). */
      served: number | null;
      /** KiB kept per 1,000 requests served over the rounds (null: requests not counted). */
      keptKiBPer1k: number | null;
    }
  | { kind: 'not-judged'; why: string };

/**
 * Requests served between the middle of window `i` and the middle of window `j`: half of each
 * end window's `weights` entry (its requests), all of those between.
 */
export function servedBetween(weights: readonly number[], i: number, j: number): number {
  let sum = 0;
  for (let k = i; k <= j; k++) sum += (weights[k] ?? 0) * (k === i || k === j ? 0.5 : 1);
  return sum;
}

/** A cell's trial records as the rounds of its server: the ok, measured rounds with resources, in round order. */
export function leakRoundsOf(trials: readonly CellResult[]): LeakRound[] {
  return trials
    .filter((t) => t.status === 'ok' && t.resources && t.load)
    .sort((a, b) => (a.round ?? 0) - (b.round ?? 0))
    .map((t) => ({ rssBytes: t.resources?.server.rssBytesAvg ?? 0, requests: t.load?.requests.total ?? 0 }));
}

/** The leak rule over `rounds` (one server, in round order). See the module comment. */
export function judgeLeak(rounds: readonly LeakRound[]): LeakVerdict {
  const n = rounds.length;
  if (n < LEAK_RULE.minRounds)
    return {
      kind: 'not-judged',
      why: `${n} measured round${n === 1 ? '' : 's'} on one server; the rule needs ${LEAK_RULE.minRounds}`,
    };
  const rss = rounds.map((r) => r.rssBytes);
  const reqs = rounds.map((r) => r.requests);
  const first = rss[0] ?? 0;
  const last = rss[n - 1] ?? 0;
  const rise = last - first;
  const counted = reqs.every((x) => x > 0);
  // Requests served weigh the growth; when a window did not count them, every round weighs 1.
  const weights = counted ? reqs : reqs.map(() => 1);
  const m = Math.floor(n / 2);
  const mid = rss[m] ?? 0;
  const early = (mid - first) / servedBetween(weights, 0, m);
  const late = (last - mid) / servedBetween(weights, m, n - 1);
  const rising = rss.every((x, i) => i === 0 || x > (rss[i - 1] ?? Number.POSITIVE_INFINITY));
  const persists = rising && first > 0 && late >= LEAK_RULE.lateRate * early;
  const served = counted ? servedBetween(reqs, 0, n - 1) : null;
  const kept = served ? ((rise / served) * 1000) / 1024 : null;
  const enough = served !== null && served >= LEAK_RULE.minRequests;
  const byRequest = enough && kept !== null && kept >= LEAK_RULE.keptKiBPer1k;
  const byShare = rise >= LEAK_RULE.growthFraction * first;
  const figures = { rss, riseBytes: rise, served, keptKiBPer1k: kept };
  if (persists && (byRequest || byShare)) return { kind: 'leak', ...figures };
  if (enough) return { kind: 'none', ...figures };
  return {
    kind: 'not-judged',
    why:
      served === null
        ? `its ${n} rounds did not count the requests served, so growth per request cannot be judged`
        : `only ${Math.round(served).toLocaleString('en-US')} requests served across its ${n} rounds; the rule needs ${LEAK_RULE.minRequests.toLocaleString('en-US')} to tell a leak of ${LEAK_RULE.keptKiBPer1k.toLocaleString('en-US')} KiB per 1,000 requests from warm-up (a slow or loaded host serves fewer; longer windows or more rounds give more)`,
  };
}
