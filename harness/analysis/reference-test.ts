/**
 * Is the bake-off biased against the reference beyond both sides' noise? The test over the gaps of
 * a check (reference-gaps.ts: each gap with its random terms, the rows of a scenario correlated
 * through the baseline's mean on both sides, scenarios independent blocks).
 *
 * Statistics over the k rows that have both intervals, with Σ̂ the gaps' covariance built from
 * their terms (block-diagonal by scenario):
 * - T = gᵀ Σ̂⁻¹ g, the GLS (Mahalanobis) distance of the gaps from 0: the omnibus test, which
 *   sees a bias spread over many rows or a shift of a whole scenario (χ²_k were Σ known).
 * - w_i = (Σ̂⁻¹ g)_i / √(Σ̂⁻¹)_ii, the standardized score of a bias in row i alone (the most
 *   powerful test of one row's shift; N(0, 1) were Σ known), and max_i |w_i|: the row test.
 *   With the baseline sharing every row, w_i compares row i with the scenario's other gaps.
 *
 * The null is simulated with the real dependence (a parametric bootstrap at the estimated
 * variances): per draw, the noise of every mean ~ Normal(0, v), one draw per source (so a
 * baseline's mean moves every row of its scenario and run), and every variance estimate × χ²_df/df,
 * one draw per pool (df rounded to a whole number; ≥ 1000 or Infinity: exact); the gaps and Σ̂*
 * are formed from them as from data and T*, max|w*| computed. p = (1 + #{T* ≥ T}) / (1 + draws),
 * likewise for max|w|; the rows beyond both intervals are those with |w_i| ≥ the 95% quantile of
 * max|w*| (single-step max-T, family-wise 5%: Westfall & Young 1993, "Resampling-Based Multiple
 * Testing", §2.6). Simulation, not χ²_k: Σ̂ is estimated on 14–24 df per side (2 for a row that
 * keeps its own variance), which widens T beyond χ²_k; Σ z_i² on χ²_k ignores the correlation
 * (test/reference.test.ts measures both). The same draws give the floor (reference-floor.ts).
 *
 * Normal draws: core/prng.ts mulberry32 with Box–Muller, seeded. Linear algebra: ml-matrix
 * (Cholesky). Throws UserError when a block's Σ̂ is not positive definite.
 */
import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import { UserError } from '../core/errors.ts';
import { mulberry32 } from '../core/prng.ts';
import {
  type GapRow,
  type GapTerm,
  gapInterval,
  gapVariance,
  type ReferenceCheck,
  targetsOf,
} from './reference-gaps.ts';

/** Draws of the simulated null (seeded: the same check always reads the same p and floor). */
export const NULL_DRAWS = 4000;

/** Family-wise level of the tests and of the rows named beyond both intervals. */
export const TEST_ALPHA = 0.05;

/** A row beyond both intervals: its gap (log) and its standardized score w. */
export interface BeyondRow {
  label: string;
  scenario: string;
  gap: number;
  w: number;
}

/** The bias test of a check (see the module docstring). */
export interface BiasTest {
  /** Rows tested (those with both intervals) and blocks (scenarios). */
  rows: number;
  blocks: number;
  draws: number;
  /** GLS T, its df (= rows), its simulated p, and χ²_df's tail for comparison (not calibrated). */
  t: number;
  df: number;
  pT: number;
  pChi2: number;
  /** max |w_i|, its simulated p and the critical value (the 1 − TEST_ALPHA quantile of max|w*|). */
  maxW: number;
  pMax: number;
  critical: number;
  /** Rows with |w_i| ≥ critical, largest |w| first. */
  beyond: BeyondRow[];
}

/** What each simulated draw read: T*, max|w*|, and the targets an unbiased design met. */
export interface NullDraw {
  t: number;
  maxW: number;
  medianBias: number;
  maxBias: number;
  within: number;
  pass: boolean;
}

/** The test with the draws behind it (reference-floor.ts summarises the draws). */
export interface TestWithDraws {
  test: BiasTest;
  draws: NullDraw[];
}

/** One block's rows with their sources (index per distinct mean) and pools. */
interface Block {
  rows: GapRow[];
  sources: { v: number; pool: number }[];
  /** Per row: [source index, coefficient] pairs, in the order of the row's terms. */
  terms: [number, number][][];
  /** Per source: the [row index, coefficient] pairs of the rows it is in. */
  on: [number, number][][];
}

function blocksOf(rows: GapRow[], pools: Map<string, number>): Block[] {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  return scenarios.map((s) => {
    const rs = rows.filter((r) => r.scenario === s);
    const index = new Map<string, number>();
    const sources: Block['sources'] = [];
    const terms = rs.map((r) =>
      (r.terms as GapTerm[]).map((t): [number, number] => {
        let i = index.get(t.source);
        if (i === undefined) {
          i = sources.length;
          index.set(t.source, i);
          if (!pools.has(t.pool)) pools.set(t.pool, pools.size);
          sources.push({ v: t.v, pool: pools.get(t.pool) ?? 0 });
        }
        return [i, t.coef];
      }),
    );
    const on = sources.map((): [number, number][] => []);
    terms.forEach((ts, i) => {
      for (const [k, c] of ts) on[k]?.push([i, c]);
    });
    return { rows: rs, sources, terms, on };
  });
}

/** Σ of one block, Σ_ij = Σ_s a_is a_js v_s f[pool_s]: each source's variance × its pool's factor. */
function covariance(b: Block, f: Float64Array): Matrix {
  const m = b.rows.length;
  const s = new Float64Array(m * m);
  b.sources.forEach((src, k) => {
    const v = src.v * (f[src.pool] ?? 1);
    const on = b.on[k] ?? [];
    for (let x = 0; x < on.length; x++) {
      const [i, ci] = on[x] as [number, number];
      for (let y = 0; y < on.length; y++) {
        const [j, cj] = on[y] as [number, number];
        s[i * m + j] = (s[i * m + j] ?? 0) + ci * cj * v;
      }
    }
  });
  return new Matrix(Array.from({ length: m }, (_, i) => Array.from(s.subarray(i * m, i * m + m))));
}

/**
 * The estimated covariance of the gaps of `rows` (those with terms), k × k in their order, 0
 * between scenarios (log units²); see reference-gaps.ts for its derivation.
 */
export function gapCovariance(rows: GapRow[]): number[][] {
  const tested = rows.filter((r) => r.terms !== null);
  const pools = new Map<string, number>();
  const blocks = blocksOf(tested, pools);
  const out = tested.map(() => new Array<number>(tested.length).fill(0));
  const ones = new Float64Array(pools.size).fill(1);
  for (const b of blocks) {
    const s = covariance(b, ones);
    b.rows.forEach((ri, i) => {
      b.rows.forEach((rj, j) => {
        (out[tested.indexOf(ri)] as number[])[tested.indexOf(rj)] = s.get(i, j);
      });
    });
  }
  return out;
}

/** T = gᵀΣ⁻¹g and w_i = (Σ⁻¹g)_i / √(Σ⁻¹)_ii of one block (Cholesky, ml-matrix). */
function statistics(g: number[], s: Matrix, scenario: string): { t: number; w: number[] } {
  const chol = new CholeskyDecomposition(s);
  if (!chol.isPositiveDefinite())
    throw new UserError(`reference test: the gaps' covariance of ${scenario} is not positive definite`);
  const x = chol.solve(Matrix.columnVector(g)).getColumn(0);
  const inv = chol.solve(Matrix.eye(g.length));
  const t = g.reduce((a, gi, i) => a + gi * (x[i] ?? 0), 0);
  return { t, w: x.map((xi, i) => xi / Math.sqrt(inv.get(i, i))) };
}

/** A standard normal draw from two uniforms (Box–Muller). */
export function normal(rand: () => number): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** χ²_df / df: a sum of df squared normals (df rounded, ≥ 1); 1 for df ≥ 1000 or Infinity. */
function chi2Factor(df: number, rand: () => number): number {
  if (!(df < 1000)) return 1;
  const n = Math.max(1, Math.round(df));
  let s = 0;
  for (let i = 0; i < n; i++) s += normal(rand) ** 2;
  return s / n;
}

/** One simulated unbiased check: its T*, max|w*| and the targets' reading. */
function drawOnce(blocks: Block[], poolDf: number[], rand: () => number): NullDraw {
  const f = Float64Array.from(poolDf, (df) => chi2Factor(df, rand));
  let t = 0;
  let maxW = 0;
  const read: { bias: number; within: boolean }[] = [];
  for (const b of blocks) {
    const noise = b.sources.map((s) => normal(rand) * Math.sqrt(s.v));
    const g = b.terms.map((ts) => ts.reduce((a, [s, c]) => a + c * (noise[s] ?? 0), 0));
    const st = statistics(g, covariance(b, f), b.rows[0]?.scenario ?? '');
    t += st.t;
    for (const w of st.w) maxW = Math.max(maxW, Math.abs(w));
    b.rows.forEach((r, i) => {
      const gi = g[i] ?? 0;
      const ts = b.terms[i] ?? [];
      const gv = gapVariance(r.terms ?? [], (_, k) => f[b.sources[ts[k]?.[0] ?? 0]?.pool ?? 0] ?? 1);
      read.push({ bias: Math.abs(Math.exp(gi) - 1), within: gapInterval(gi, gv.v, gv.df).within });
    });
  }
  const biases = read.map((x) => x.bias).sort((a, c) => a - c);
  const n = biases.length;
  const tg = targetsOf(read);
  return {
    t,
    maxW,
    medianBias: ((biases[(n - 1) >> 1] ?? 0) + (biases[n >> 1] ?? 0)) / 2,
    maxBias: biases[n - 1] ?? 0,
    within: read.filter((x) => x.within).length,
    pass: tg?.met ?? false,
  };
}

/**
 * The bias test of `check`'s rows that have both intervals, with its `draws` simulated null draws
 * (seed `seed`); null when no row has both intervals. See the module docstring.
 */
export function biasTest(check: ReferenceCheck, draws = NULL_DRAWS, seed = 46): TestWithDraws | null {
  const rows = check.rows.filter((r) => r.terms !== null && r.se !== null && r.se > 0);
  if (!rows.length) return null;
  const pools = new Map<string, number>();
  const blocks = blocksOf(rows, pools);
  const poolDf: number[] = [];
  for (const r of rows) for (const t of r.terms ?? []) poolDf[pools.get(t.pool) ?? 0] = t.df;
  const ones = new Float64Array(pools.size).fill(1);
  let t = 0;
  const ws: { row: GapRow; w: number }[] = [];
  for (const b of blocks) {
    const st = statistics(
      b.rows.map((r) => r.gap),
      covariance(b, ones),
      b.rows[0]?.scenario ?? '',
    );
    t += st.t;
    b.rows.forEach((row, i) => {
      ws.push({ row, w: st.w[i] ?? 0 });
    });
  }
  const maxW = Math.max(...ws.map((x) => Math.abs(x.w)));
  const rand = mulberry32(seed);
  const sims = Array.from({ length: draws }, () => drawOnce(blocks, poolDf, rand));
  const sorted = sims.map((d) => d.maxW).sort((a, c) => a - c);
  const critical = sorted[Math.min(draws - 1, Math.ceil((1 - TEST_ALPHA) * draws) - 1)] ?? Number.POSITIVE_INFINITY;
  const p = (hits: number) => (1 + hits) / (1 + draws);
  const test: BiasTest = {
    rows: rows.length,
    blocks: blocks.length,
    draws,
    t,
    df: rows.length,
    pT: p(sims.filter((d) => d.t >= t).length),
    pChi2: 1 - chisquareCdf(t, rows.length),
    maxW,
    pMax: p(sims.filter((d) => d.maxW >= maxW).length),
    critical,
    beyond: ws
      .filter((x) => Math.abs(x.w) >= critical)
      .sort((a, c) => Math.abs(c.w) - Math.abs(a.w))
      .map((x) => ({ label: x.row.label, scenario: x.row.scenario, gap: x.row.gap, w: x.w })),
  };
  return { test, draws: sims };
}
