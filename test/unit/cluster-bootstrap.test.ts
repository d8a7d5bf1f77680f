// The self-test's dependence-aware interval (harness/analysis/cluster-bootstrap.ts): the pigeonhole
// bootstrap over tables and copies. Synthetic null pairs, seeded (mulberry32): independent pairs
// keep a design effect near 1; pairs that share a table's noise and a copy's draw widen the
// interval, and it then holds the true rate where a binomial interval over the pairs does not.
import assert from 'node:assert/strict';
import test from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import {
  clopperPearsonUpper,
  type NullPair,
  pigeonholeShare,
  runsToCertify,
} from '../../harness/analysis/cluster-bootstrap.ts';
import { clopperPearson } from '../../harness/cli/selftest.ts';

const normal = (rand: () => number) => () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** 5 tables × 10 copies: every pair of copies in every table, hit with probability p, independently. */
function independent(rand: () => number, p: number): NullPair[] {
  const out: NullPair[] = [];
  for (let t = 0; t < 5; t++)
    for (let a = 0; a < 10; a++)
      for (let b = a + 1; b < 10; b++) out.push({ table: `t${t}`, a: `c${a}`, b: `c${b}`, hit: rand() < p });
  return out;
}

/**
 * Dependent pairs like the self-test's: each table draws its own noise estimate (a σ̂ that is low
 * in some tables turns many of their pairs at once) and each copy a figure per table with a share
 * that persists across tables; a pair is "different" when its gap exceeds 2.8 × the table's σ̂.
 */
function dependent(z: () => number): NullPair[] {
  const out: NullPair[] = [];
  const copy = Array.from({ length: 10 }, () => z());
  for (let t = 0; t < 5; t++) {
    const sigma = Math.exp(0.35 * z());
    const y = copy.map((c) => 0.6 * c + 0.8 * z());
    for (let a = 0; a < 10; a++)
      for (let b = a + 1; b < 10; b++)
        out.push({ table: `t${t}`, a: `c${a}`, b: `c${b}`, hit: Math.abs((y[a] ?? 0) - (y[b] ?? 0)) > 2.8 * sigma });
  }
  return out;
}

test('independent pairs: the interval holds the rate and errs wide, never narrow (design effect between 1 and 8)', (tc) => {
  const rand = mulberry32(1);
  let cover = 0;
  let deff = 0;
  const N = 100;
  for (let i = 0; i < N; i++) {
    const c = pigeonholeShare(independent(rand, 0.05), { reps: 400, seed: i });
    assert.equal(c.pairs, 225);
    assert.ok(c.ci95[0] <= c.rate && c.rate <= c.ci95[1]);
    if (c.ci95[0] <= 0.05 && 0.05 <= c.ci95[1]) cover++;
    deff += c.designEffect ?? 1;
  }
  tc.diagnostic(`independent pairs: coverage ${cover}/${N}, mean design effect ${(deff / N).toFixed(1)}`);
  assert.ok(cover / N >= 0.95, `coverage ${cover}/${N}`);
  assert.ok(deff / N > 1 && deff / N < 8, `design effect ${(deff / N).toFixed(2)}: conservative, bounded by 2³`);
});

test('dependent pairs: the interval widens and holds the true rate where the binomial one does not', (tc) => {
  const z = normal(mulberry32(36));
  // The true rate of the process, from many tables.
  let hits = 0;
  let pairs = 0;
  for (let i = 0; i < 400; i++)
    for (const p of dependent(z)) {
      pairs++;
      if (p.hit) hits++;
    }
  const truth = hits / pairs;
  let coverCp = 0;
  let coverPh = 0;
  let deff = 0;
  const N = 150;
  for (let i = 0; i < N; i++) {
    const ps = dependent(z);
    const c = pigeonholeShare(ps, { reps: 400, seed: i });
    const cp = clopperPearson(c.hits, c.pairs);
    if (cp[0] <= truth && truth <= cp[1]) coverCp++;
    if (c.ci95[0] <= truth && truth <= c.ci95[1]) coverPh++;
    deff += c.designEffect ?? 0;
  }
  tc.diagnostic(
    `true rate ${(100 * truth).toFixed(1)}%; coverage: Clopper–Pearson ${((100 * coverCp) / N).toFixed(0)}%, pigeonhole ${((100 * coverPh) / N).toFixed(0)}%; mean design effect ${(deff / N).toFixed(1)}`,
  );
  assert.ok(
    deff / N > 8,
    `the pairs' dependence shows beyond the bootstrap's own excess: design effect ${(deff / N).toFixed(2)}`,
  );
  assert.ok(coverCp / N < 0.85, `the binomial interval is too narrow: ${coverCp}/${N}`);
  assert.ok(coverPh / N >= 0.88, `the pigeonhole interval holds the rate: ${coverPh}/${N}`);
});

test('runs to certify an upper end ≤ 8%: fewer with more effective pairs, none at or above the target', () => {
  assert.equal(runsToCertify(0.04, 26), 7);
  assert.ok((runsToCertify(0.04, 56) ?? 99) < 7);
  assert.ok((runsToCertify(0.05, 26) ?? 0) > 7);
  assert.equal(runsToCertify(0.08, 1000), null);
  const n = 7 * 26;
  assert.ok(clopperPearsonUpper(0.04 * n, n) <= 0.08 && clopperPearsonUpper(0.04 * 6 * 26, 6 * 26) > 0.08);
  assert.throws(() => pigeonholeShare([]), /no pairs/);
});
