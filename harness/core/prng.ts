/**
 * mulberry32: a tiny 32-bit seeded PRNG returning floats in [0, 1). One implementation for the
 * deterministic users seed (services/users-seed.ts), the bootstraps and simulations of analysis/
 * (stats.ts, cluster-bootstrap.ts, reference-floor.ts), the per-round shuffle (scheduler/rounds.ts,
 * interleave.ts) and the capacity search's seeded factors (scheduler/capacity-round.ts).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
