/**
 * The sources' claims (docs/sources.md), judged in each source's own load shape. Data: `claims.json` beside this file (one entry per claim; ids are stable).
 *
 * This module finds each claim's cells and judges them; the verdict rule is claim-verdict.ts, the
 * claim's units claim-units.ts, its second line claim-headroom.ts, its text claim-text.ts and the
 * types claim-types.ts (all re-exported here). The rule (also `claimsRule()`, printed by the report):
 * - Each claim names its profile(s): the source's load shape (pipelined for the Nexus/Express/
 *   Fastify report; k6-ramp for the nestjs-undici-performance report; k6-vus for the NestJS/
 *   LoopBack/Nhost comparison; stress for the PostGraphile template perf runner).
 *   It is judged once per profile.
 * - Its decision range (`expected`) comes from the source: the source's own spread (`range.from
 *   = 'spread'`, e.g. the figures on Node 20/22/24), or the source's single figure ± a stated
 *   tolerance on the ratio (`range.from = 'tolerance'`; the range is then computed here).
 * - Only cells of ONE run with ≥ 5 rounds each are used (the latest run that has both); the
 *   band is the 95% interval of the ratio a/b: for a requests/s claim whose cells ran in
 *   interleaved rounds (`pipelined`, `stress`), the table model's (`modelRatio`: requests per
 *   server CPU-second, per server process or round); else the solo requests/s ratio paired by round
 *   (analysis/stats.ts `ratio`): variation between rounds, not within-run jitter. `ours` is the ratio's figure, in the
 *   claim's units (ratio, increase a/b − 1, reduction 1 − a/b). Latency claims are judged through
 *   Little's law: in a closed-loop profile at the same concurrency, mean latency a/b = requests/s b/a.
 * - The verdict is one rule over the band and the claimed range (claim-verdict.ts `bandVerdict`):
 *   refuted: the band lies wholly outside the range; consistent, not resolved: the band reaches
 *   into the range and includes "no difference"; confirmed: the band excludes "no difference" and
 *   ours lies in the range; inconclusive: the band straddles the range's edge with ours outside.
 *   The same band gets the same verdict whether or not the range includes "no difference".
 * - A client-bound side's figure is a lower bound. When that bound could move the ratio into the
 *   claimed range (refuted or inconclusive) or out of it (confirmed), the verdict is
 *   "inconclusive (client-bound)", never refuted.
 * - Resolution: when the table model of the run's table (analysis/tables.ts `tableModel`, i.e.
 *   analysis/table-model.ts; fitted with b as the reference row when the run has no row of the
 *   scenario's baseline) gives a minimum detectable difference (MDD, 90% power, two-sided 5%)
 *   and the whole claimed range lies closer to "no difference" than the MDD (in requests/s ratio:
 *   inside (1/(1 + MDD), 1 + MDD)), a refuted or inconclusive verdict, or a confirmed one whose band
 *   includes "no difference", is "inconclusive (below resolution)", never refuted.
 * - Provisional: when a cell's stored load shape (`load.profile`, after --duration/--vus/--rate)
 *   differs from the profile's definition (core/profiles.ts), the verdict is marked provisional
 *   and the override is named ("5 × 2 s, source 5 × 12 s").
 * - not measured: no run has both cells in the profile with ≥ 5 trials (or one failed); the
 *   result carries the exact command that measures it.
 * - A client-bound k6 pair whose cells both carry wrk's figure at the same concurrency
 *   (report/native-figure.ts `nativePair`), neither client-bound, is judged on wrk's figures (no
 *   table model: the run's table is k6's); k6's own ratio is kept as the source tool's
 *   (`sourceTool`), printed beside it.
 * - A second line under a driver with headroom: for an "inconclusive (client-bound)"
 *   verdict, the same comparison from the newest run that has both cells on the scenario, in any
 *   other profile, with ≥ 5 trials each and neither side client-bound nor failed (`headroom`).
 *   It is labelled as ours, not the source's shape, and never changes the verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.ts';
import { getProfile, interleaveOf, measuredSeconds, type Profile } from '../core/profiles.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import { buildTables, pairedRounds, type RunSnapshot, tableModel } from '../analysis/tables.ts';
import { compare } from '../analysis/table-model.ts';
import { cellFailure, cellTrialCount, MIN_CI_TRIALS, type RatioEstimate } from '../analysis/stats.ts';
import { fmtPct } from '../core/format.ts';
import { nativePair } from './native-figure.ts';
import { serverBelowBusy } from '../lifecycle/sampler.ts';
import type { Claim, ClaimResult, EvaluateOptions } from './claim-types.ts';
import { formatComparison, toleranceRange } from './claim-units.ts';
import { bandVerdict, clientBoundVerdict, resolutionVerdict } from './claim-verdict.ts';
import { claimBand, headroomLine, matches, sourceToolText, toolLine } from './claim-headroom.ts';
import { measureCommand, sourceLoadText } from './claim-text.ts';

export type { Claim, ClaimResult, ClaimVerdict, EvaluateOptions, HeadroomLine, RangeSource } from './claim-types.ts';
export {
  ascending,
  claimValue,
  describeRange,
  formatComparison,
  formatRange,
  ratioForValue,
  toleranceRange,
} from './claim-units.ts';
export { bandVerdict, belowResolution, claimsRule, clientBoundVerdict, resolutionVerdict } from './claim-verdict.ts';
export { headroomLine, headroomText, sourceToolText } from './claim-headroom.ts';
export { contenderOf, measureCommand, renderClaims, sharedText, sourceLoadText, verdictText } from './claim-text.ts';

export const CLAIMS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'claims.json');

/**
 * The claims from the data file, with `expected` computed for tolerance ranges. Throws UserError
 * naming the file and the claim when an entry lacks a field, has a range of an unknown kind, or
 * gives both a tolerance and an `expected` (one source per range).
 */
export function loadClaims(file = CLAIMS_FILE): Claim[] {
  const claims = JSON.parse(fs.readFileSync(file, 'utf8')).claims as Claim[];
  return claims.map((c) => {
    const where = `${file}: claim ${c.id ?? '(no id)'}`;
    for (const k of ['id', 'source', 'scenario', 'a', 'b', 'range', 'profiles'] as const)
      if (c[k] === undefined) throw new UserError(`${where} has no '${k}'`);
    if (c.sourceLoad !== undefined && (typeof c.sourceLoad !== 'string' || !c.sourceLoad))
      throw new UserError(`${where}: 'sourceLoad' must be a non-empty text (how the source's load generator ran)`);
    if (c.range.from === 'tolerance') {
      if (c.expected !== undefined)
        throw new UserError(
          `${where}: a tolerance range computes 'expected'; remove 'expected' or use range.from 'spread'`,
        );
      if (!(c.range.tolerance > 0 && c.range.tolerance < 1) || !Number.isFinite(c.range.figure))
        throw new UserError(`${where}: range needs a finite 'figure' and a 'tolerance' between 0 and 1 (0.15 = ±15%)`);
      return { ...c, expected: toleranceRange(c.compare, c.range.figure, c.range.tolerance) };
    }
    if (c.range.from !== 'spread' || !c.range.note || !Array.isArray(c.expected))
      throw new UserError(
        `${where}: range.from must be 'spread' (with 'note' and 'expected') or 'tolerance' (with 'figure' and 'tolerance')`,
      );
    return c;
  });
}

/**
 * How a cell's measured load shape differs from its profile's definition (core/profiles.ts): the
 * window length (or ramp stages), VUs, connections and pipelining of the stored `load.profile`
 * against the defined one. "5 × 2 s, source 5 × 12 s" (windows × seconds; VUs, connections or
 * pipelining added when they differ); null when it is the profile's own shape, the cell has no
 * load, or the profile is not defined here. The source side counts max(profile rounds, 5) windows
 * (the profile's solo rounds when it has interleaved rounds: the claim rests on those).
 */
export function shapeOverride(cell: CellResult): string | null {
  const used = cell.load?.profile as (Profile & Record<string, unknown>) | undefined;
  if (!used) return null;
  let def: Profile & Record<string, unknown>;
  try {
    def = getProfile(cell.profile) as Profile & Record<string, unknown>;
  } catch {
    return null;
  }
  const differs = (k: string) =>
    used[k] !== undefined && def[k] !== undefined && JSON.stringify(used[k]) !== JSON.stringify(def[k]);
  if (!['durationS', 'stages', 'vus', 'connections', 'pipelining'].some(differs)) return null;
  const text = (p: Profile & Record<string, unknown>, windows: number) =>
    [
      `${windows} × ${measuredSeconds(p)} s`,
      differs('vus') ? ` at ${p.vus} VUs` : '',
      differs('connections') ? ` at ${p.connections} connections` : '',
      differs('pipelining') ? `, pipelining ${p.pipelining}` : '',
    ].join('');
  return `${text(used, cellTrialCount(cell))}, source ${text(def, interleaveOf(def) ? def.rounds : Math.max(def.rounds, MIN_CI_TRIALS))}`;
}

/** Accepts the store's snapshot, or a flat list of cells (grouped into runs by runId). */
function asRuns(input: RunSnapshot[] | CellResult[]): RunSnapshot[] {
  const [head] = input;
  if (!head) return [];
  if ('meta' in head) return input as RunSnapshot[];
  const by = new Map<string, CellResult[]>();
  for (const c of input as CellResult[]) by.set(c.runId, [...(by.get(c.runId) ?? []), c]);
  return [...by].map(([runId, cells]) => ({
    meta: { runId, startedAt: cells.map((c) => c.startedAt).sort()[0] ?? '' } as RunMeta,
    cells,
  }));
}

/**
 * Judges every claim in each of its profiles from same-run cells (see the module docstring).
 * `input`: the store's snapshot of runs (or a flat list of cells; runs are then told apart by runId).
 */
export function evaluateClaims(
  claims: Claim[],
  input: RunSnapshot[] | CellResult[],
  opts: EvaluateOptions = {},
): ClaimResult[] {
  const runs = [...asRuns(input)].sort(
    (x, y) =>
      (y.meta.startedAt ?? '').localeCompare(x.meta.startedAt ?? '') || y.meta.runId.localeCompare(x.meta.runId),
  );
  const out: ClaimResult[] = [];
  for (const claim of claims) for (const profile of claim.profiles) out.push(judge(claim, profile, runs, opts));
  // Claims judged from the very same cells (or the same missing cells) say so.
  const key = (r: ClaimResult) => [r.claim.a, r.claim.b, r.claim.scenario, r.profile, r.runId ?? ''].join('|');
  for (const r of out) r.sharedWith = out.filter((o) => o !== r && key(o) === key(r)).map((o) => o.claim.id);
  return out;
}

type Pair = { run: RunSnapshot; a: CellResult; b: CellResult };

/** The rounds a claim's figure of cell `c` rests on: its interleaved rounds when it has them, else its solo trials. */
export function claimRounds(c: CellResult): number {
  return pairedRounds(c) || cellTrialCount(c);
}

/** The latest run holding both cells in this profile with ≥ 5 rounds each (`claimRounds`; `pair`), else the latest with fewer. */
function findPair(claim: Claim, profile: string, runs: RunSnapshot[]): { pair: Pair | null; fewer: Pair | null } {
  let pair: Pair | null = null;
  let fewer: Pair | null = null;
  for (const run of runs) {
    const inProfile = run.cells.filter((c) => c.scenario === claim.scenario && c.profile === profile);
    for (const a of inProfile.filter((c) => matches(claim.a, c))) {
      const b = inProfile.find((c) => matches(claim.b, c) && c.driver === a.driver && c.node.major === a.node.major);
      if (!b) continue;
      const enough = claimRounds(a) >= MIN_CI_TRIALS && claimRounds(b) >= MIN_CI_TRIALS;
      if (enough && !pair) pair = { run, a, b };
      if (!enough && !fewer) fewer = { run, a, b };
    }
    if (pair) break;
  }
  return { pair, fewer };
}

/** The table of the pair's run (scenario, profile, driver, Node major) that holds both cells; undefined when none does. */
function pairTable({ a, b, run }: Pair, opts: EvaluateOptions) {
  return buildTables([run], { runId: run.meta.runId, scenarios: opts.scenarios }).find(
    (x) =>
      x.key.scenario === a.scenario &&
      x.key.profile === a.profile &&
      x.key.driver === a.driver &&
      x.key.nodeMajor === a.node.major &&
      x.rows.some((r) => r.cell === a || r.label === a.label) &&
      x.rows.some((r) => r.cell === b || r.label === b.label),
  );
}

/**
 * A requests/s claim's ratio a/b from the table model of the pair's run when both cells ran in
 * interleaved rounds (analysis/tables.ts `tableModel`: the two-way model of requests per server
 * CPU-second per server process; fitted with b as the reference row when the table has no model
 * of its own): `compare` a vs b, its 95% t interval, n = the units per row. Each server is pinned
 * to one core and saturated in the claims' closed-loop shapes, so a server's requests per
 * CPU-second is its requests/s on that core, and host drift cancels within a round (solo windows
 * seconds apart differ by 5–20% here: scheduler/interleave.ts). Null otherwise (latency claims,
 * solo rounds only, a server below SERVER_BUSY_PCT of its core in its solo window, no model).
 */
function modelRatio(claim: Claim, pair: Pair, opts: EvaluateOptions): RatioEstimate | null {
  const { a, b } = pair;
  if (claim.metric !== 'rps' || !pairedRounds(a) || !pairedRounds(b)) return null;
  // A server below SERVER_BUSY_PCT of its core in its solo window waits (for the database, the
  // client): its requests per CPU-second is not its requests/s, so the claim keeps the solo ratio.
  if (serverBelowBusy(a.resources) || serverBelowBusy(b.resources)) return null;
  const t = pairTable(pair, opts);
  const ranked = t?.rows.filter((r) => r.status === 'ranked') ?? [];
  if (!t || !ranked.some((r) => r.label === a.label) || !ranked.some((r) => r.label === b.label)) return null;
  const fit = (t.model ? tableModel(ranked, t.baseline) : null) ?? tableModel(ranked, b.label);
  if (!fit) return null;
  const c = compare(fit.fit, a.label, b.label);
  const n = Math.min(...fit.fit.rows.filter((r) => r.name === a.label || r.name === b.label).map((r) => r.n));
  return {
    figure: c.ratio,
    interval: c.ci,
    kind: 'ci95',
    n,
    paired: true,
    df: c.df,
    estimator: `table model: requests per server CPU-second, interleaved rounds, per ${fit.summary.unit === 'process' ? 'server process' : 'round'} (analysis/table-model.ts fitTwoWay)`,
  };
}

/**
 * The table model's MDD for a vs b in the pair's run (analysis/tables.ts `buildTables` → `model`):
 * against the baseline when one side is the table's baseline, else between two rows. When the run
 * has no row of the scenario's baseline (e.g. `just claims` runs without it), the same model
 * (analysis/tables.ts `tableModel`) is fitted with b, the claim's own reference, as the baseline
 * row, and its MDD against that row is a vs b's; `reference` then names b. Null when neither fits
 * (fewer than 2 ranked rows, no common rounds).
 */
function modelMdd(pair: Pair, opts: EvaluateOptions): { mdd: number; reference: string | null } | null {
  const { a, b } = pair;
  const t = pairTable(pair, opts);
  if (!t) return null;
  if (t.model) {
    const vsBaseline = t.baseline === a.label || t.baseline === b.label;
    const m = vsBaseline ? t.model.mdd.baseline : t.model.mdd.pair;
    return Number.isFinite(m) ? { mdd: m, reference: null } : null;
  }
  if (t.baselineRow) return null; // the baseline is there, yet no model: too few common rounds
  const own = tableModel(
    t.rows.filter((r) => r.status === 'ranked'),
    b.label,
  );
  const m = own?.summary.mdd.baseline;
  return m !== undefined && Number.isFinite(m) ? { mdd: m, reference: b.label } : null;
}

function notMeasured(claim: Claim, profile: string, fewer: Pair | null): ClaimResult {
  const note = fewer
    ? `run ${fewer.run.meta.runId} has ${claimRounds(fewer.a)} and ${claimRounds(fewer.b)} rounds; a verdict needs ${MIN_CI_TRIALS} each`
    : (claim.whenMissing ?? `no run has both ${claim.a} and ${claim.b} on ${claim.scenario} in the ${profile} profile`);
  return {
    ...empty(claim, profile),
    runId: fewer?.run.meta.runId ?? null,
    trials: fewer ? { a: claimRounds(fewer.a), b: claimRounds(fewer.b) } : null,
    note,
  };
}

function empty(claim: Claim, profile: string): ClaimResult {
  return {
    claim,
    profile,
    runId: null,
    ours: null,
    band: null,
    ratio: null,
    verdict: 'not measured',
    trials: null,
    clientBound: [],
    mdd: null,
    mddReference: null,
    override: null,
    provisional: false,
    sharedWith: [],
    note: '',
    command: measureCommand(claim, profile),
    headroom: null,
    sourceTool: null,
  };
}

/** One claim in one profile: its pair of cells, band, verdict (claim-verdict.ts), note and second line. */
function judge(claim: Claim, profile: string, runs: RunSnapshot[], opts: EvaluateOptions): ClaimResult {
  const { pair, fewer } = findPair(claim, profile, runs);
  if (!pair) return notMeasured(claim, profile, fewer);
  const { run, a, b } = pair;
  const trials = { a: claimRounds(a), b: claimRounds(b) };
  const override = [...new Set([a, b].map(shapeOverride).filter((x): x is string => x !== null))].join('; ') || null;
  const base = { ...empty(claim, profile), runId: run.meta.runId, trials, override, provisional: override !== null };
  const failed = [a, b].map((c) => [c.label, cellFailure(c)] as const).filter(([, f]) => f);
  if (failed.length) return { ...base, note: `failed: ${failed.map(([l, f]) => `${l} (${f})`).join('; ')}` };
  // A client-bound k6 pair with wrk's server-bound figures beside it is judged on those.
  const native = nativePair(a, b);
  const [ja, jb] = native ? [native.a, native.b] : [a, b];
  const { r, ours, iv, band } = claimBand(claim, ja, jb, native ? null : modelRatio(claim, pair, opts));
  const clientBound = [ja, jb].filter((c) => c.resources?.clientBound).map((c) => c.label);
  const sourceTool = native ? toolLine(claim, a, b) : null;
  const model = native ? null : modelMdd(pair, opts);
  const mdd = model?.mdd ?? null;
  const verdict = resolutionVerdict(
    claim,
    clientBoundVerdict(claim, bandVerdict(claim, r.kind, ours, band), ja, jb, iv),
    band,
    mdd,
  );
  const fmt = (v: number) => formatComparison(claim.compare, v);
  const note = [
    `${fmt(ours)} (95% interval ${fmt(band[0])} … ${fmt(band[1])}, ${r.n} ${r.estimator.startsWith('table model') ? (r.estimator.includes('server process') ? 'server processes of interleaved rounds, requests per CPU-second' : 'interleaved rounds, requests per CPU-second') : 'paired rounds'})`,
    sourceTool ? sourceToolText(claim.compare, sourceTool) : '',
    clientBound.length ? `client-bound (lower bound): ${clientBound.join(', ')}` : '',
    sourceLoadText(claim, clientBound.length === 0),
    model
      ? `the table model's MDD ±${fmtPct(model.mdd, 1)}${model.reference ? ` (reference row ${model.reference}: the run has no row of the scenario's baseline)` : ''}`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  const mddReference = model?.reference ?? null;
  const headroom =
    verdict === 'inconclusive (client-bound)' ? headroomLine(claim, profile, a.node.major, runs, opts) : null;
  return {
    ...base,
    ours,
    band,
    ratio: r,
    verdict,
    clientBound,
    mdd,
    mddReference,
    note,
    command: null,
    headroom,
    sourceTool,
  };
}
