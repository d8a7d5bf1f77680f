/**
 * The report's method text: the rank rule and the method lines, built from the constants of the
 * code that ranks (analysis/table-model.ts `ALPHA`, `EQUIVALENCE_MARGIN`, `HETEROGENEITY_ALPHA`;
 * analysis/stats.ts `MIN_CI_TRIALS`, `NOISE_THRESHOLD`, `COMPARE_THRESHOLD`) and from the default
 * profile's shape (core/profiles.ts `quick`), with the capacity profile's line built from its
 * shape (core/profiles.ts `CapacityShape`), so that the printed rules and numbers are the ones the
 * harness runs with.
 */
import { DEFAULT_PROFILE, getProfile, isConnectionProfile } from '../../core/profiles.ts';
import { COMPARE_THRESHOLD, MIN_CI_TRIALS, NOISE_THRESHOLD } from '../../analysis/stats.ts';
import { ALPHA, EQUIVALENCE_MARGIN, HETEROGENEITY_ALPHA } from '../../analysis/table-model.ts';
import { SETTLE_SHARE } from '../../scheduler/capacity-round.ts';
import { fmtPct, plural } from '../../core/format.ts';

/**
 * The numbers the rank rule and the method lines print, each from the constant the code uses:
 * the intervals' level (1 − ALPHA), the equivalence (TOST) interval's level (1 − 2·ALPHA) and
 * its bounds (1/(1 + margin), 1 + margin), the F test's level, the trials a rank needs and the
 * ratio a rank without a model needs (1 + NOISE_THRESHOLD). Exported for the tests.
 */
export const RULE_NUMBERS = {
  ci: fmtPct(1 - ALPHA),
  tostCi: fmtPct(1 - 2 * ALPHA),
  equivalence: `${(1 / (1 + EQUIVALENCE_MARGIN)).toFixed(2)}–${(1 + EQUIVALENCE_MARGIN).toFixed(2)}`,
  margin: fmtPct(EQUIVALENCE_MARGIN),
  fTest: fmtPct(HETEROGENEITY_ALPHA),
  minTrials: MIN_CI_TRIALS,
  noModelRatio: (1 + NOISE_THRESHOLD).toFixed(2),
  compare: fmtPct(COMPARE_THRESHOLD),
} as const;

const N = RULE_NUMBERS;

/**
 * The rank rule as the report prints it, from the table model (analysis/tables.ts `tableModel`:
 * table-model.ts `fitTwoWay` on interleaved rounds, `fitTable` on solo rounds, rank-ranges.ts `rankRanges` with
 * `compare`'s verdicts; without a model, stats.ts `rankRows`).
 */
export const RANK_RULE = [
  'Rows are ordered by figure.',
  "A rank is a range: best = 1 + the rows significantly faster, worst = N − the rows significantly slower, from the table's model.",
  "With interleaved rounds it is a two-way model of each cell's log requests per CPU-second per round (per server process, the mean of its rounds, when a cell ran in several):",
  `a cell effect plus a round effect that absorbs the host's drift, the noise pooled over the table (a row much noisier than the others keeps its own variance, F test at ${N.fTest}),`,
  "and the baseline a noisy row like the others; with solo rounds only, each row's per-round log-ratio to the baseline of the same round, the noise pooled.",
  `"Significantly" = the pair's ${N.ci} CI excludes 1; "equal within ${N.margin}" = its ${N.tostCi} CI lies inside ${N.equivalence}; otherwise "not resolved".`,
  `Tables without a model (no baseline row): rank = 1 + rows whose paired ratio's ${N.ci} CI lies above 1 and is at least ${N.noModelRatio}.`,
].join(' ');

/** The default profile's design as one method line (its solo windows, interleaved rounds, slices and processes). */
function designMethod(): string {
  const p = getProfile(DEFAULT_PROFILE);
  const i = isConnectionProfile(p) ? p.interleave : undefined;
  const solo = `${plural(p.rounds, 'solo window')} of ${p.durationS} s per cell`;
  if (!i)
    return `The default design (the \`${p.name}\` profile): ${solo}, in rounds whose order is shuffled per round, every contender of a scenario (and its baseline) in the same run; a window’s figure is requests completed ÷ window seconds, a cell’s figure the geometric mean of its windows, and the ranks and “% of baseline” come from them.`;
  const processes = (i.instances ?? 1) > 1 ? `, in ${i.instances} server processes per cell` : '';
  return [
    `The default design (the \`${p.name}\` profile) measures every contender of a scenario and its baseline in the same run.`,
    `Requests/s and latency come from ${solo}, in rounds whose order is shuffled per round: a window’s figure is requests completed ÷ window seconds, a cell’s figure the geometric mean of its windows.`,
    `Ranks and “% of baseline” come from ${i.rounds} interleaved rounds${processes}: every server of the table is driven at once and resumed in turn for ${i.sliceMs} ms slices (about ${i.activeS} s of load each per round), so all of them sample the same seconds of the host’s drift;`,
    'a server’s figure in a round is its requests per server CPU-second ((requests completed + requests in flight at the end) ÷ the CPU-seconds of its processes).',
    'Profiles without interleaved rounds (and an external `--url` target) rank on their solo windows.',
  ].join(' ');
}

/** The method lines of every report (how figures, intervals, ratios and ranks are made). */
export const METHOD = [
  designMethod(),
  `With ≥ ${N.minTrials} solo windows a cell’s requests/s interval is a ${N.ci} Student-t confidence interval on the logs (“${N.ci} CI”); with 2–${N.minTrials - 1} it is the min–max of the windows (“range (N trials)”), never called a confidence interval; one window has none. Printed bounds are rounded outward, so they contain the printed figure.`,
  `“% of baseline” is the ratio to the scenario’s baseline contender in the same run, from the table’s model that the ranks use, with its ${N.ci} CI (without a model, paired by round); cells from other runs appear only as ratios to their own run’s baseline, marked with their run.`,
  `Ranks follow the rank rule printed under the overview’s “How sure” line. Only ok cells with ≥ ${N.minTrials} interleaved rounds (with solo rounds only, ≥ ${N.minTrials} windows) and no failure are ranked; tables never mix runs or machines.`,
  'Latency percentiles come from the solo windows’ merged HDR histograms (an interleaved window’s latency includes its pauses and is never used); a closed-loop driver measures the server at saturation (coordinated omission).',
  `CPU % is of one core (100 = one core); charts end at the pinned cores × 100. Compare runs with \`npx just compare A B\` (change of the ratio to each run’s own baseline, threshold ${N.compare}, interval must exclude 0).`,
];

/** The method line of the capacity profile, added when the snapshot has capacity cells. */
export const CAPACITY_METHOD = capacityMethod();

/** The capacity method line, from the `capacity` profile's shape (profiles.ts `CapacityShape`), the one source of its numbers. */
function capacityMethod(): string {
  const p = getProfile('capacity');
  const c = isConnectionProfile(p) ? p.capacity : undefined;
  if (!c) return 'Capacity: the `capacity` profile has no capacity shape.';
  const half = (c.priorSpread ?? 0) / 2;
  const later = c.gallop
    ? `; later rounds start at the first bracketed round’s figure times a seeded factor in ${(2 ** -half).toFixed(2)}–${(2 ** half).toFixed(2)} and move by ×${c.gallop}, then its square, fourth power … (at most 4×), up or down until the capacity is bracketed`
    : '';
  return [
    `Capacity (the \`capacity\` profile): per round a closed-loop window gives the peak, then a ${c.settleS} s settle step`,
    `(open-loop at ${fmtPct(SETTLE_SHARE)} of the search’s first rate, not recorded)`,
    `and an open-loop search of ${c.stepS} s steps`,
    '(oha, else k6; latency timed from each request’s scheduled send, so no coordinated omission).',
    `The first round starts at ${c.startShare} × the peak times a seeded factor in 0.71–1.41${later};`,
    'the search divides the rate by 4 until a rate holds and bisects (geometric midpoints) between the highest held rate and the lowest failing one',
    `— or, with no failure yet, up to ${c.capShare} × the cell’s median peak so far —`,
    `until they are within ${fmtPct(c.precision - 1)};`,
    'a step holds when p99 ≤ the SLO (the scenario’s, or `--slo-p99`), ≤ 0.1% of requests fail and ≥ 95% of the rate is achieved,',
    'and a rate’s verdict is the majority of 3 steps (2 that agree decide), for a pass as for a fail',
    '— while the search explores, one passing step holds a rate for now,',
    'and the held rate its result rests on is then confirmed by the majority (a flipped verdict searches on).',
    'A search that bracketed its capacity gives the geometric midpoint of its bracket;',
    'the sustainable rate’s figure and interval are over those searches only (“4 of 5 bracketed”) while the others agree',
    '— when another search held a rate above that interval, the cell is “≥” the geometric mean over every search',
    '(bracketed midpoints and highest held rates) with their min–max as its range, and its ranks and Spearman’s ρ use that figure;',
    'with none, the cell is “≥” the highest held rates (the open-loop driver at its limit, or no failure up to the cap), a lower bound;',
    '“never”: not even the lowest rate held, not ranked.',
    'Share of peak at SLO = sustainable ÷ closed-loop peak (stored as `knee`);',
    'p99 at capacity = the median over the searches of the p99 of their highest held rate.',
    `Runs before 2026-11-26T19 decided every rate by the majority of 3 and moved ×${c.gallop} at most twice before ÷4 and the cap,`,
    'at precision 8%; older runs, which stored no bracket per search, used a best-of-two rule (a failing step repeated, the better kept)',
    'and marked a cell “≥” when any search hit the driver’s limit; runs before 2026-11-26T07 idled 0.5 s in place of the settle step.',
  ].join(' ');
}
