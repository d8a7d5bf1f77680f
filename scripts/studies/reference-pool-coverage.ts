/**
 * How often does the merged reference's 95% interval cover the true ratio, when records of one
 * design are read together (harness/analysis/reference-merge.ts `mergeReferences`)? Simulates two
 * rotation records (node-http, express at 0.43, fastify at 0.89; 16 and 18 blocks; a block effect
 * of log SD 0.05 for the host's minutes; per-process log noise 0.064, the json records' block
 * spread), each record's true ratios drawn with a log spread τ about the truth (a day's ratio),
 * and counts the draws whose express interval covers 0.43, at each pooling level and for one
 * record alone. With `--solo` (or `poolCoverage(…, solo)`), two solo records of 4 processes per
 * contender instead, each process at its own minutes of the host (log SD 0.05) with noise 0.09:
 * solo records are always read as their mean. Reads and writes nothing; the numbers are in
 * docs/methodology.md.
 *
 * Run: `node scripts/studies/reference-pool-coverage.ts [draws] [--solo]` (default 1,000 per τ).
 */
import { mergeReferences, POOL_ALPHA, type PoolSource } from '../../harness/analysis/reference-merge.ts';
import { referenceRatios } from '../../harness/analysis/reference-stats.ts';
import { mulberry32 } from '../../harness/core/prng.ts';

const normal = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

/** The design the simulated records share (a rotation reference's defaults, 100 connections). */
export const SIM_DESIGN = { warmupS: 20, windows: 6, windowS: 5, connections: 100, order: 'rotation' };

/**
 * A quiet simulated rotation record of `blocks` blocks: node-http at `speed` requests/s times a
 * block effect (log SD 0.05), each other contender at its `ratios` entry, each process with log
 * noise `sd` (default 0.05). `windows` and `node` change its design key (never pooled across them).
 */
export function simulatedRecord(
  runId: string,
  at: string,
  blocks: number,
  ratios: Record<string, number>,
  r: () => number,
  opts: { speed?: number; sd?: number; node?: string; windows?: number; solo?: boolean } = {},
): PoolSource {
  const sd = opts.sd ?? 0.05;
  const processes = Array.from({ length: blocks }, (_, i) => i + 1).flatMap((block) => {
    const host = (opts.speed ?? 60_000) * Math.exp(0.05 * normal(r));
    return Object.entries({ 'node-http': 1, ...ratios }).map(([contender, ratio]) => {
      // Solo: every process sees its own minutes of the host, and has no block.
      const speed = opts.solo ? (opts.speed ?? 60_000) * Math.exp(0.05 * normal(r)) : host;
      const rps = speed * ratio * Math.exp(sd * normal(r));
      const windows = [{ durationS: 5, foreignCpuS: 0 }];
      return opts.solo
        ? { contender, scenario: 'json', rps, efficiency: rps, windows }
        : { contender, scenario: 'json', block, rps, efficiency: rps, windows };
    });
  });
  return {
    runId,
    at,
    ratios: referenceRatios(processes, () => 'node-http'),
    processes,
    quiet: { disturbed: 0 },
    design: {
      ...SIM_DESIGN,
      windows: opts.windows ?? SIM_DESIGN.windows,
      ...(opts.solo ? { order: 'ABBA', windows: 3, windowS: 10 } : {}),
    },
    machine: { cpuModel: 'AMD EPYC' },
    node: opts.node ?? 'v24.21.0',
  };
}

/**
 * Share of `draws` simulated record pairs (see the module docstring) whose express 95% interval
 * covers the truth 0.43: merged at pooling level `alpha`, and for the newer record alone. Also the
 * share that pooled their blocks. Deterministic for a `seed`.
 */
export function poolCoverage(
  tau: number,
  alpha: number,
  draws: number,
  seed: number,
  solo = false,
): { merged: number; alone: number; pooled: number } {
  const r = mulberry32(seed);
  const covers = (ci: [number, number] | null | undefined) => (ci && ci[0] <= 0.43 && 0.43 <= ci[1] ? 1 : 0);
  let merged = 0;
  let alone = 0;
  let pooled = 0;
  // Solo: two records of 4 processes per contender, each process with the solo records' log spread of about 0.1.
  const [na, nb, sd] = solo ? [4, 4, 0.09] : [16, 18, 0.064];
  for (let i = 0; i < draws; i++) {
    const day = () => ({ express: 0.43 * Math.exp(tau * normal(r)), fastify: 0.89 * Math.exp(tau * normal(r)) });
    const a = simulatedRecord('a', '2026-11-01T00:00:00Z', na, day(), r, { sd, solo });
    const b = simulatedRecord('b', '2026-11-02T00:00:00Z', nb, day(), r, { sd, solo });
    const m = mergeReferences([a, b], alpha);
    if (m.pools[0]?.pooled) pooled++;
    merged += covers(m.ratios.find((x) => x.contender === 'express')?.rps.ci95);
    alone += covers(b.ratios.find((x) => x.contender === 'express')?.rps.ci95);
  }
  return { merged: merged / draws, alone: alone / draws, pooled: pooled / draws };
}

if (import.meta.main) {
  const solo = process.argv.includes('--solo');
  const draws = Number(process.argv.slice(2).find((a) => a !== '--solo') ?? 1000);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  for (const alpha of solo ? [POOL_ALPHA] : [0.05, 0.25, 0.5])
    for (const tau of [0, 0.02, 0.03, 0.05]) {
      const c = poolCoverage(tau, alpha, draws, 1, solo);
      process.stdout.write(
        `level ${alpha}, τ ${tau}: merged covers ${pct(c.merged)} (pooled ${pct(c.pooled)}), one record ${pct(c.alone)}\n`,
      );
    }
}
