/**
 * Compacts finished runs of a results folder (store/compact.ts): `node scripts/maintenance/compact-run.ts
 * <results-dir> <run-id>…`. Prints bytes before and after per run. A maintainer's tool for keeping
 * the committed results within their size budget; the harness reads compacted runs as any other.
 */
import path from 'node:path';
import { compactRun } from '../../harness/store/compact.ts';

const [resultsDir, ...ids] = process.argv.slice(2);
if (!resultsDir || !ids.length) {
  process.stderr.write('usage: node scripts/maintenance/compact-run.ts <results-dir> <run-id>…\n');
  process.exit(2);
}
for (const id of ids) {
  const { before, after } = compactRun(path.resolve(resultsDir), path.resolve(resultsDir, 'runs', id));
  process.stdout.write(`${id}: ${before} bytes of cells and trials → ${after} bytes compacted\n`);
}
