/**
 * Statistics over repeated trials (hyperfine and criterion.rs are the models):
 * - the cell's figure is the median requests/s of its trials, with a 95% confidence interval
 *   from a percentile bootstrap over the trials (N ≥ 3) or, for one trial, over its per-second
 *   samples (labelled as such);
 * - latency percentiles come from the trials' HDR histograms merged (hdr-histogram-js), never
 *   from averaged percentiles;
 * - ratios between two cells ("1.52 ± 0.03 times faster") carry a bootstrap interval, and two
 *   cells whose intervals overlap are tied;
 * - trials that disagree by more than `NOISY_THRESHOLD` make the cell "noisy — re-run".
 * The bootstrap uses a seeded PRNG so the same data always gives the same interval.
 */
import * as hdr from 'hdr-histogram-js';
import { mulberry32 } from '../core/prng.ts';
import type { CellResult, CellStats } from '../store/results.ts';

/** Trials whose (max − min)/median exceeds this are flagged noisy (10%). */
export const NOISY_THRESHOLD = 0.1;
const RESAMPLES = 2000;

/** The seeded PRNG of the bootstrap (mulberry32). */
export const prng = mulberry32;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function quantile(sorted: number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (i - lo);
}

/** Percentile-bootstrap 95% interval of `stat` over `xs` (seeded). */
export function bootstrapCI(xs: number[], stat: (s: number[]) => number, seed = 1): [number, number] {
  if (xs.length < 2) return [xs[0] ?? 0, xs[0] ?? 0];
  const rnd = prng(seed);
  const out: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    const s = Array.from({ length: xs.length }, () => xs[Math.floor(rnd() * xs.length)]);
    out.push(stat(s));
  }
  out.sort((a, b) => a - b);
  return [quantile(out, 0.025), quantile(out, 0.975)];
}

/** Merges HDR histograms (compressed base64, µs) and reads percentiles in ms; null without histograms. */
export function mergeLatency(encoded: (string | null)[]): CellStats['latencyMs'] {
  const hs = encoded.filter((e): e is string => Boolean(e));
  if (!hs.length) return null;
  const merged = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  for (const e of hs) merged.add(hdr.decodeFromCompressedBase64(e));
  const at = (p: number) => merged.getValueAtPercentile(p) / 1000;
  return {
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: merged.maxValue / 1000,
  };
}

/**
 * Statistics of one cell from its trials (all `ok`, same cell, in run order). The returned
 * figure replaces nothing: the caller keeps the last trial's `load` and adds `stats`.
 */
export function trialStats(trials: CellResult[]): CellStats {
  const rps = trials.map((t) => t.load!.requestsPerSec.mean);
  const med = median(rps);
  const perSecond = trials.length === 1 ? steadySamples(trials[0]) : [];
  const rpsStat =
    trials.length >= 3
      ? { median: med, ci95: bootstrapCI(rps, median), method: 'bootstrap over trials' as const }
      : perSecond.length >= 2
        ? { median: med, ci95: bootstrapCI(perSecond, mean), method: 'per-second samples (one trial)' as const }
        : {
            median: med,
            ci95: [Math.min(...rps), Math.max(...rps)] as [number, number],
            method: 'bootstrap over trials' as const,
          };
  const spread = trials.length > 1 ? (Math.max(...rps) - Math.min(...rps)) / med : 0;
  return {
    trials: trials.length,
    trialRps: rps,
    rps: rpsStat,
    latencyMs: mergeLatency(trials.map((t) => t.load!.latencyHistogramUs)),
    spread,
    noisy: spread > NOISY_THRESHOLD,
  };
}

/**
 * A trial's per-second requests/s without its first second: autocannon's first tick comes
 * before all connections are up (measured ~15% low on every contender here), which would
 * inflate the noise estimate. The reported mean is autocannon's own, first second included.
 */
export function steadySamples(c: CellResult): number[] {
  const s = c.load!.requestsPerSec.samples;
  return s.length >= 3 ? s.slice(1) : s;
}

/** The values a cell's requests/s is resampled from: its trials, or its steady per-second samples. */
function rpsSamples(c: CellResult): number[] {
  if (c.stats && c.stats.trials >= 3) return c.stats.trialRps;
  const s = steadySamples(c);
  return s.length >= 2 ? s : [c.load!.requestsPerSec.mean];
}

/** True when the cell's requests/s has an interval (≥ 3 trials, or ≥ 2 steady per-second samples; k6 gives none). */
export function hasInterval(c: CellResult): boolean {
  return Boolean(c.stats && c.stats.trials >= 3) || steadySamples(c).length >= 2;
}

/** The cell's headline requests/s: the median of its trials (or the single trial's mean). */
export function cellRps(c: CellResult): number {
  return c.stats?.rps.median ?? c.load!.requestsPerSec.mean;
}

/** The cell's 95% interval of requests/s (over trials when there are ≥ 3, else over its steady seconds). */
export function cellCI(c: CellResult): [number, number] {
  return c.stats && c.stats.trials >= 3 ? c.stats.rps.ci95 : bootstrapCI(rpsSamples(c), mean);
}

/** Ratio a/b of requests/s with a bootstrap 95% interval and its ± half-width (hyperfine style). */
export function ratioCI(a: CellResult, b: CellResult, seed = 7): { ratio: number; ci95: [number, number]; pm: number } {
  const sa = rpsSamples(a);
  const sb = rpsSamples(b);
  // Each side resamples what its own figure is: the median of trials, or the mean of per-second samples.
  const statOf = (c: CellResult) => (c.stats && c.stats.trials >= 3 ? median : mean);
  const [fa, fb] = [statOf(a), statOf(b)];
  const rnd = prng(seed);
  const out: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    const ra = fa(Array.from({ length: sa.length }, () => sa[Math.floor(rnd() * sa.length)]));
    const rb = fb(Array.from({ length: sb.length }, () => sb[Math.floor(rnd() * sb.length)]));
    out.push(ra / rb);
  }
  out.sort((x, y) => x - y);
  const ci95: [number, number] = [quantile(out, 0.025), quantile(out, 0.975)];
  return { ratio: cellRps(a) / cellRps(b), ci95, pm: (ci95[1] - ci95[0]) / 2 };
}

/** True when the two cells' 95% intervals overlap: not ranked apart. */
export function tied(a: CellResult, b: CellResult): boolean {
  const [alo, ahi] = cellCI(a);
  const [blo, bhi] = cellCI(b);
  return alo <= bhi && blo <= ahi;
}
