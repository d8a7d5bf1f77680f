/**
 * mulberry32: a tiny 32-bit seeded PRNG returning floats in [0, 1). One implementation for the
 * deterministic users seed (services/users-seed.ts), the bootstrap (report/stats.ts) and the
 * per-round shuffle of interleaved trials (run.ts).
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
