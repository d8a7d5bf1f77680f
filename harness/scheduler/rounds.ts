/**
 * The order of measured windows: `trials` rounds, each giving every contender of a group one
 * window, each round in its own shuffled order drawn from a seeded PRNG (mulberry32, Fisher–Yates).
 * The same seed, ids and trial count always give the same rounds (the seed is recorded in
 * meta.json; `--seed` fixes it), so an interleaving can be reproduced. `restartOrder` draws, the
 * same way, the order in which a group's servers are restarted and warmed for each later process.
 */
import { mulberry32 } from '../core/prng.ts';

/** A copy of `xs` in an order drawn from `rnd` (Fisher–Yates). */
export function shuffle<T>(xs: readonly T[], rnd: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    // swap a[i] and a[j] (j ≤ i < a.length); slices keep the element type exact
    const ai = a.slice(i, i + 1);
    const aj = a.slice(j, j + 1);
    a.splice(i, 1, ...aj);
    a.splice(j, 1, ...ai);
  }
  return a;
}

/**
 * The rounds of one group: `rounds` arrays, each a permutation of `ids`. Round r of group g is
 * shuffled with seed `seed + 7919·g + r` (so groups and rounds differ, and each is reproducible).
 */
export function roundOrders<T>(ids: readonly T[], rounds: number, seed: number, group = 0): T[][] {
  return Array.from({ length: rounds }, (_, r) => shuffle(ids, mulberry32((seed + 7919 * group + r) >>> 0)));
}

/** A fresh random shuffle seed (recorded so the run can be reproduced). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/**
 * The order in which the live servers are restarted and warmed as server process `instance`: a
 * seeded shuffle per process block (seed + 7919·group + 15,485,863·instance), so that the idle
 * time between a server's warm-up and the next round (up to servers × the re-warm-up) is not tied
 * to a cell's place in the plan. In a fixed order the cells later in it ran faster, 0.2% per place
 * (r = 0.54 over the 50 identical copies of self-test 0882's five tables), a bias a model on
 * per-process means cannot see; shuffled, it is noise in every process mean, inside the intervals.
 */
export function restartOrder<T>(live: readonly T[], ctx: { seed: number; groupIndex: number }, instance: number): T[] {
  return shuffle(live, mulberry32((ctx.seed + 7919 * ctx.groupIndex + 15_485_863 * instance) >>> 0));
}
