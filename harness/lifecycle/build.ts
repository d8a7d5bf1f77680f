/**
 * The build step of a contender (manifest `build`, e.g. `npx tsc -p .`), run in its folder
 * before any timing. Resolves with ok=false and the compiler's output on failure; never throws.
 */
import path from 'node:path';
import type { Manifest } from '../core/manifest.ts';
import { ROOT } from '../core/paths.ts';
import { runTracked } from './processes.ts';

export interface BuildResult {
  ok: boolean;
  /** Wall time of the build, ms. */
  ms: number;
  /** Tail of the combined stdout/stderr (the compiler's message on failure). */
  output: string;
}

/**
 * Runs the manifest's build command through `sh -c` (10 min limit), with the pinned Node and the
 * repository's `node_modules/.bin` (tsc, …) first on PATH. No build → ok, 0 ms.
 */
export async function buildContender(m: Manifest, signal?: AbortSignal): Promise<BuildResult> {
  if (!m.build) return { ok: true, ms: 0, output: '' };
  const t0 = performance.now();
  const PATH = [path.dirname(process.execPath), path.join(ROOT, 'node_modules', '.bin'), process.env.PATH].join(
    path.delimiter,
  );
  const { code, output, timedOut } = await runTracked('sh', ['-c', m.build], {
    cwd: m.dir,
    env: { ...process.env, PATH },
    signal,
    timeoutMs: 600_000,
  });
  const tail = output.trim().split('\n').slice(-40).join('\n');
  return {
    ok: code === 0,
    ms: performance.now() - t0,
    output: timedOut ? `build timed out after 600 s\n${tail}` : tail,
  };
}
