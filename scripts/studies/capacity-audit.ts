/**
 * Audit of a capacity run's trial files (issue 23): the figures the README quotes about the
 * committed capacity run `2026-11-26T03-06-24Z-f007` (and, from git history, the rules before
 * issue 23 in run `2026-11-22T05-55-55Z-f499`), recomputed from `trials/*.json` and `cells/*.json`.
 *
 * Prints: searches and steps; failures (not client-bound) at a first try of a rate and how many
 * passed on the immediate repeat at the same rate (the best-of-two rule before issue 23); first
 * tries at a rate ≤ the search's result that failed, first step of a search vs later steps (the
 * settle question), and the same by the rate's share of the search's result (like for like); searches that never saw a failing rate above their result and those whose
 * lowest failing rate was client-bound; oha's passing steps above 40,000 requests/s and the
 * highest; the share of peak at SLO (`knee`) of every loopback4 cell and its range over the run;
 * steps per search in round 1 and in later rounds; cells by searches bracketed; per scenario its
 * wall time, steps per search and the median and longest cell time, then the median cell over
 * every scenario.
 * Rates in requests/s. Reads only; writes nothing.
 *
 * Run: `node scripts/studies/capacity-audit.ts [run id | run folder …]` (default: the committed capacity
 * runs 2026-11-26T18-34-24Z-3b81 (ping) and 2026-11-26T18-48-27Z-db63 (the other five REST
 * scenarios), audited as one; the runs before them — 6659, 7953, f007 — are in git history; a
 * folder, e.g. results/capacity-truth/runs/<id>, for runs kept elsewhere).
 */
import { RESULTS_DIR } from '../../harness/core/paths.ts';
import type { CapacitySearch, CellResult } from '../../harness/store/results.ts';
import { readRun, readTrials } from '../../harness/store/runs.ts';

const runs =
  process.argv.length > 2 ? process.argv.slice(2) : ['2026-11-26T18-34-24Z-3b81', '2026-11-26T18-48-27Z-db63'];
const run = runs.join(' + ');
// Run ids under results/runs, or run folders (store/runs.ts readRun takes both).
const read = runs.map((r) => readRun(RESULTS_DIR, r));
const runCells = read.flatMap((r) => r.cells);

const trials = read
  .flatMap((r) => readTrials(r.dir).trials)
  .filter((t): t is CellResult & { capacitySearch: CapacitySearch } => Boolean(t.capacitySearch));
const tally = {
  first: { fails: 0, repeatPass: 0, atHeld: 0, atHeldFail: 0 },
  later: { fails: 0, repeatPass: 0, atHeld: 0, atHeldFail: 0 },
};
let noFailure = 0;
let driverLimit = 0;
const above40k: number[] = [];
for (const t of trials) {
  const { steps, rps } = t.capacitySearch;
  steps.forEach((s, i) => {
    if (s.pass && t.capacitySearch.driver === 'oha' && s.rate > 40000) above40k.push(s.rate);
    const prev = steps[i - 1];
    if (prev && prev.rate === s.rate && !prev.pass && !prev.clientBound) return; // the repeat of a failure
    const b = i === 0 ? tally.first : tally.later;
    if (!s.pass && !s.clientBound) {
      b.fails++;
      if (steps[i + 1]?.rate === s.rate && steps[i + 1]?.pass) b.repeatPass++;
    }
    if (rps !== null && s.rate <= rps) {
      b.atHeld++;
      if (!s.pass && !s.clientBound) b.atHeldFail++;
    }
  });
  if (rps === null) continue;
  const failedAbove = [...new Set(steps.map((s) => s.rate))]
    // A failing rate: its verdict (ratePass, issue 23's majority of steps), or in runs before it every step failed.
    .filter((r) => {
      const at = steps.filter((s) => s.rate === r);
      return (
        r > rps &&
        (at.some((s) => s.ratePass !== undefined) ? at.some((s) => s.ratePass === false) : at.every((s) => !s.pass))
      );
    })
    .sort((a, b) => a - b);
  if (!failedAbove.length) noFailure++;
  else if (steps.some((s) => s.rate === failedAbove[0] && s.clientBound)) driverLimit++;
}
const n = (x: number) => x.toLocaleString('en-US');
console.log(
  `run ${run}: ${trials.length} searches, ${n(trials.reduce((a, t) => a + t.capacitySearch.steps.length, 0))} steps`,
);
const fails = tally.first.fails + tally.later.fails;
console.log(
  `failures not client-bound at a first try: ${fails}; passed on the immediate repeat: ${tally.first.repeatPass + tally.later.repeatPass}`,
);
console.log(
  `first tries at a rate ≤ the search's result that failed: first step ${tally.first.atHeldFail} of ${tally.first.atHeld}, later steps ${tally.later.atHeldFail} of ${n(tally.later.atHeld)}`,
);
console.log(
  `searches with no failing rate above their result: ${noFailure}; lowest failing rate client-bound: ${driverLimit}`,
);
console.log(`oha passing steps above 40,000 req/s: ${above40k.length}, highest ${n(Math.max(0, ...above40k))}`);
const cells = runCells.filter((c) => c.capacity);
for (const c of cells.filter((x) => x.label.startsWith('loopback4')))
  console.log(`share of peak at SLO, ${c.scenario} ${c.label}: ${Math.round(100 * (c.capacity?.knee ?? Number.NaN))}%`);
const knees = cells.flatMap((c) => (c.capacity?.knee != null ? [c.capacity.knee] : [])).sort((a, b) => a - b);
console.log(
  `share of peak at SLO over the run: ${Math.round(100 * (knees[0] ?? 0))}%–${Math.round(100 * (knees.at(-1) ?? 0))}%`,
);

// First tries by rate (the settle question, like for like): the failure share of a search's first
// step against later steps' first tries at a rate, by the rate's share of the search's result
// (a first step sits lower on average, where steps fail less, so the pooled counts above hide it).
const BINS = [0, 0.5, 0.8, 0.95, 1.0001];
const byShare = { first: BINS.slice(1).map(() => [0, 0]), later: BINS.slice(1).map(() => [0, 0]) };
for (const t of trials) {
  const { steps, rps } = t.capacitySearch;
  if (rps === null) continue;
  steps.forEach((s, i) => {
    if ((i > 0 && steps[i - 1]?.rate === s.rate) || s.clientBound) return; // first tries only
    const b = BINS.findIndex((lo, k) => s.rate / rps >= lo && s.rate / rps < (BINS[k + 1] ?? 0));
    const row = (i === 0 ? byShare.first : byShare.later)[b];
    if (!row) return;
    row[0] = (row[0] ?? 0) + 1;
    if (!s.pass) row[1] = (row[1] ?? 0) + 1;
  });
}
for (const k of ['first', 'later'] as const)
  console.log(
    `first tries by rate ÷ result, ${k === 'first' ? "a search's first step" : 'later steps'}: ${byShare[k]
      .map(([all = 0, failed = 0], i) => `${BINS[i]}–${Math.min(1, BINS[i + 1] ?? 1)} failed ${failed} of ${all}`)
      .join(', ')}`,
  );

// Steps per search: the first round (its own start) against later rounds (started near the cell's
// first bracketed search when the profile gallops), and how many searches of a cell bracketed.
const byRound = (first: boolean) => trials.filter((t) => (t.round === 1) === first);
const perSearch = (ts: typeof trials) =>
  ts.length ? (ts.reduce((a, t) => a + t.capacitySearch.steps.length, 0) / ts.length).toFixed(1) : 'n/a';
console.log(
  `steps per search: round 1 ${perSearch(byRound(true))} (${byRound(true).length} searches), later rounds ${perSearch(byRound(false))} (${byRound(false).length})`,
);
const bracketedOf = new Map<number, number>();
for (const c of cells) {
  const k = c.capacity?.bracketed ?? 0;
  bracketedOf.set(k, (bracketedOf.get(k) ?? 0) + 1);
}
console.log(
  `cells by searches bracketed: ${[...bracketedOf.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([k, v]) => `${k} of 5: ${v}`)
    .join(', ')}`,
);

// Time: per scenario, its wall time (first trial's cell start to the last trial's end) and each
// cell's time (the sum of its trials' spans, a trial's span starting where the previous trial of
// the scenario ended), median and most.
const ms = (s: string) => Date.parse(s);
const everyCellS: number[] = [];
for (const scenario of [...new Set(trials.map((t) => t.scenario))]) {
  const ts = trials.filter((t) => t.scenario === scenario).sort((a, b) => ms(a.finishedAt) - ms(b.finishedAt));
  const start = Math.min(...ts.map((t) => ms(t.startedAt)));
  const perCell = new Map<string, number>();
  let prev = start;
  for (const t of ts) {
    perCell.set(t.label, (perCell.get(t.label) ?? 0) + ms(t.finishedAt) - prev);
    prev = ms(t.finishedAt);
  }
  const cellS = [...perCell.values()].map((x) => x / 1000).sort((a, b) => a - b);
  everyCellS.push(...cellS);
  const med = cellS[(cellS.length - 1) >> 1] ?? 0;
  const top = [...perCell.entries()].sort((a, b) => b[1] - a[1])[0];
  const steps = ts.reduce((n, t) => n + t.capacitySearch.steps.length, 0) / ts.length;
  console.log(
    `${scenario}: ${perCell.size} cells in ${((prev - start) / 60000).toFixed(1)} min, ${steps.toFixed(1)} steps per search; a cell took a median of ${med.toFixed(0)} s, at most ${((top?.[1] ?? 0) / 1000).toFixed(0)} s (${top?.[0]})`,
  );
}
everyCellS.sort((a, b) => a - b);
console.log(
  `every scenario: ${everyCellS.length} cells; a cell took a median of ${(everyCellS[(everyCellS.length - 1) >> 1] ?? 0).toFixed(0)} s`,
);
