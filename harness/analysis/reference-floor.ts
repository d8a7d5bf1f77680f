/**
 * What a bake-off design with NO bias reads against a reference (the noise floor of the second
 * certificate), the test of whether this bake-off's gaps are beyond that noise, and their texts.
 *
 * The reference is itself measured, so even an unbiased design reads gaps above zero and may miss
 * the targets (reference-gaps.ts REFERENCE_TARGETS: each row's gap 90% interval inside ±10%,
 * median |gap| ≤ 5%, max ≤ 10%). The floor is read from the bias test's simulated unbiased checks
 * (reference-test.ts: the same draws, with the shared baseline's correlation and each variance
 * estimate's df): the median over draws of the median and max |gap|, the mean rows shown inside
 * ±10%, and the share of draws that meet all three targets. A missed target with a floor that
 * rarely passes says "cannot tell at this precision", not "biased"; what says "biased" is the test.
 *
 * Texts: `accuracyLine`, one conclusion for the how-sure line (rows within ±10%, the rows beyond
 * both intervals with their gaps); `accuracyDetails`, the arithmetic (T, df, p, the row test, the
 * targets and the floor) for the report's method and `reference-compare`. Ratios unitless;
 * |gap| = |bake-off ÷ reference − 1|.
 */
import { median } from './stats.ts';
import { REFERENCE_TARGETS, type ReferenceCheck } from './reference-gaps.ts';
import { type BiasTest, biasTest, NULL_DRAWS, TEST_ALPHA } from './reference-test.ts';

/** What an unbiased design reads, and the bias test of this check. */
export interface NoBiasReading {
  /** Rows with both intervals (the only ones the floor and the test can use). */
  rows: number;
  /** Median over draws of the rows' median |gap|. */
  medianBias: number;
  /** Median over draws of the rows' largest |gap|. */
  maxBias: number;
  /** Mean over draws of the rows whose gap 90% interval lies inside ±margin. */
  within: number;
  /** Share of draws in which all three targets hold: the chance an unbiased design passes. */
  pass: number;
  test: BiasTest;
}

/**
 * The floor and the test of `check`'s rows that have both intervals (`draws` seeded draws), or
 * null when none has. Throws UserError when a scenario's covariance is not positive definite.
 */
export function noBiasReading(check: ReferenceCheck, draws = NULL_DRAWS, seed = 46): NoBiasReading | null {
  const r = biasTest(check, draws, seed);
  if (!r) return null;
  const d = r.draws;
  return {
    rows: r.test.rows,
    medianBias: median(d.map((x) => x.medianBias)),
    maxBias: median(d.map((x) => x.maxBias)),
    within: d.reduce((a, x) => a + x.within, 0) / d.length,
    pass: d.filter((x) => x.pass).length / d.length,
    test: r.test,
  };
}

const pc = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (gap: number) => {
  const x = 100 * (Math.exp(gap) - 1);
  return `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}%`;
};
const pText = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/** Reference record ids as the accuracy texts name them inside one code span: "a` + `b". */
export function recordsLabel(ids: readonly string[]): string {
  return ids.join('` + `');
}

/** The sentence for reference `id` of which `n` disturbed processes were left out (mergeReferences `leftOut`). */
export function leftOutText(id: string, n: number): string {
  return `Reference \`${id}\`: ${n} process${n === 1 ? '' : 'es'} with a window that other work disturbed left out, with their blocks.`;
}

/**
 * The how-sure line's conclusion, e.g. "accuracy: 13 of 14 rows within ±10% of the steady-state
 * reference `ID`; beyond both intervals: loopback4 json −13.0% (one bake-off; the targets are
 * judged on ≥ 3)". Rows within ±10% by their point gap; the rows named are the row test's
 * (`BiasTest.beyond`); when the gaps together are beyond (GLS) but no row is, it says so.
 */
export function accuracyLine(check: ReferenceCheck, reading: NoBiasReading | null, referenceId: string): string {
  const t = REFERENCE_TARGETS;
  const m = Math.round(100 * t.margin);
  const near = check.rows.filter((r) => r.bias <= t.margin).length;
  const head = `accuracy: ${near} of ${check.rows.length} rows within ±${m}% of the steady-state reference \`${referenceId}\``;
  const test = reading?.test;
  const beyond = !test
    ? 'no row has both intervals, so none can be tested'
    : test.beyond.length
      ? `beyond both intervals: ${test.beyond.map((b) => `${b.label} ${b.scenario} ${signed(b.gap)}`).join(', ')}`
      : test.pT <= TEST_ALPHA
        ? `no single row beyond both intervals, but the gaps together are (${pText(test.pT)})`
        : 'no row beyond both intervals';
  const runs =
    check.runs < t.runs
      ? `${check.runs === 1 ? 'one bake-off' : `mean of ${check.runs} bake-offs`}; the targets are judged on ≥ ${t.runs}`
      : `mean of ${check.runs} bake-offs; targets ${check.targets?.met ? 'met' : 'not met'}`;
  return `${head}; ${beyond} (${runs})`;
}

/**
 * The arithmetic behind `accuracyLine`, one paragraph: what a gap is, the GLS T with its df and
 * simulated p (and χ²'s, which the shared baseline makes wrong), the row test, each target's
 * reading and the floor of an unbiased design at these intervals.
 */
export function accuracyDetails(check: ReferenceCheck, reading: NoBiasReading | null, referenceId: string): string {
  const t = REFERENCE_TARGETS;
  const m = Math.round(100 * t.margin);
  const unit = check.unit === 'rps' ? 'requests/s' : 'requests per CPU-second';
  const runs = check.runs === 1 ? 'one bake-off' : `the mean of ${check.runs} bake-offs`;
  const head = `Accuracy against the steady-state reference \`${referenceId}\` (${unit} ratios to the baseline; ${runs}): each row's gap is ln(bake-off ratio ÷ reference ratio), its standard error from both sides' models (t quantiles, each variance on its own df); the gaps of one scenario are correlated through the baseline both sides share, and scenarios are independent.`;
  const tg = check.targets;
  const targets = `Targets: ${check.within} of ${check.rows.length} rows' gap ${Math.round(100 * t.level)}% intervals inside ±${m}%${tg ? ` (${tg.equivalence ? 'met' : 'not met'})` : ''}, median |gap| ${pc(check.medianBias ?? Number.NaN)} (≤ ${pc(t.medianBias)}: ${tg?.median ? 'met' : 'not met'}), max ${pc(check.maxBias ?? Number.NaN)} (≤ ${pc(t.maxBias)}: ${tg?.max ? 'met' : 'not met'})${check.runs < t.runs ? `, read on ${runs} where ≥ ${t.runs} are required` : ''}.`;
  if (!reading) return `${head} ${targets} No row has both intervals: no test.`;
  const x = reading.test;
  const test = `GLS T = ${x.t.toFixed(1)} on ${x.df} df, ${pText(x.pT)} by ${x.draws.toLocaleString('en-US')} simulated unbiased checks (χ² on ${x.df} df would give ${pText(x.pChi2)}); the row test (max |w| = ${x.maxW.toFixed(2)}, ${pText(x.pMax)}, critical ${x.critical.toFixed(2)}, family-wise ${Math.round(100 * TEST_ALPHA)}%) finds ${x.beyond.length ? x.beyond.map((b) => `${b.label} ${b.scenario} ${signed(b.gap)}`).join(', ') : 'no row'} beyond both intervals.`;
  const floor = `An unbiased design at these intervals reads median |gap| ${pc(reading.medianBias)}, max ${pc(reading.maxBias)}, ${reading.within.toFixed(1)} of ${reading.rows} rows inside ±${m}%, and meets the targets in ${Math.round(100 * reading.pass)}% of checks.`;
  return `${head} ${test} ${targets} ${floor}`;
}
