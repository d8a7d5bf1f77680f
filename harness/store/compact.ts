/**
 * Compact storage of a finished run: its cells/ and trials/ folders (one pretty-printed JSON file
 * per cell or trial) become `cells.ndjson.gz` and `trials.ndjson.gz` beside meta.json, one cell or
 * trial a line, gzipped (node:zlib). Readers need not know: store/result-files.ts `readCellDir` reads a
 * folder or, when it is gone, its compacted file. A run of a few hundred files shrinks about
 * tenfold, so the committed results folder keeps its runs within its size budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import writeFileAtomic from 'write-file-atomic';
import { UserError } from '../core/errors.ts';
import { refuseLinks } from './links.ts';
import { COMPACT_SUFFIX, readCellDir, readMetaFile } from './result-files.ts';

/**
 * Compacts run folder `runDir` (inside `resultsDir`): each of cells/ and trials/ is read and
 * validated, written as one gzipped NDJSON file (atomically), read back and compared, and only
 * then removed. Returns bytes before and after. UserError when the run is not complete, a file of
 * it does not validate (nothing is lost: the folder stays), or a link is on the way.
 */
export function compactRun(resultsDir: string, runDir: string): { before: number; after: number } {
  refuseLinks(resultsDir, runDir);
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  const meta = readMetaFile(path.join(runDir, 'meta.json'), acc);
  if (meta?.state !== 'complete')
    throw new UserError(`${runDir}: only a complete run is compacted (${meta?.state ?? 'no meta.json'})`);
  let before = 0;
  let after = 0;
  for (const sub of ['cells', 'trials']) {
    const dir = path.join(runDir, sub);
    if (!fs.existsSync(dir)) continue;
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    before += files.reduce((a, f) => a + fs.statSync(path.join(dir, f)).size, 0);
    const cells = readCellDir(dir, acc);
    if (acc.skipped.length) throw new UserError(`${dir}: ${acc.warnings[0]}; not compacted`);
    const gz = zlib.gzipSync(`${cells.map((c) => JSON.stringify(c)).join('\n')}\n`, { level: 9 });
    const out = `${dir}${COMPACT_SUFFIX}`;
    writeFileAtomic.sync(out, gz);
    fs.renameSync(dir, `${dir}.compacting`); // read back through the compacted file alone
    const back = readCellDir(dir, acc);
    if (acc.skipped.length || JSON.stringify(back) !== JSON.stringify(cells)) {
      fs.rmSync(out, { force: true });
      fs.renameSync(`${dir}.compacting`, dir);
      throw new UserError(`${dir}: the compacted file did not read back the same; not compacted`);
    }
    fs.rmSync(`${dir}.compacting`, { recursive: true, force: true });
    after += gz.length;
  }
  return { before, after };
}
