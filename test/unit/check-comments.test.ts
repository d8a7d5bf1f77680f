// scripts/checks/check-comments.ts: tracker references, run ids, comments naming missing files or names,
// and oversized files under harness/ fail the check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  commentFindings,
  LONG_FILES,
  lineCount,
  MAX_FILE_LINES,
  referenceFindings,
} from '../../scripts/checks/check-comments.ts';
import { ROOT } from '../helpers.ts';

const script = path.join(ROOT, 'scripts', 'checks', 'check-comments.ts');

test('commentFindings finds "issue N" and run ids, not placeholders or other words', () => {
  const text = [
    '/** The rule (issue 12) holds. */',
    '// calibrated on run 2026-11-26T21-34-58Z-d078',
    "const example = 'just compare 2026-01-01T00-00-00Z-abcd'; // a placeholder",
    '// see issue #7 and Issue 3.1',
    "const heading = 'Findings'; // 'Issues found: 2' was its old name",
  ].join('\n');
  const got = commentFindings('harness/x.ts', text).map((f) => `${f.line} ${f.what.split(':')[0]}`);
  assert.deepEqual(got, [
    "1 tracker reference 'issue 12'",
    "2 run id '2026-11-26T21-34-58Z-d078'",
    "4 tracker reference 'issue #7'",
  ]);
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a\nb\n'), 2);
  assert.equal(lineCount('a\nb'), 2);
});

test('referenceFindings: a comment naming a missing file, a name its file lacks, or a name no code has', () => {
  const files: Record<string, string> = {
    'harness/analysis/stats.ts': 'export function median(xs: number[]) {}',
    'docs/noise.md': '# Noise',
  };
  const resolve = (ref: string) =>
    Object.entries(files)
      .filter(([p]) => p === ref || p.endsWith(`/${ref}`))
      .map(([, t]) => t);
  const known = (n: string) => ['median', 'withOverrides'].includes(n);
  const text = [
    '/** The median (analysis/stats.ts `median`; docs/noise.md, stats.ts). */',
    '// see store/read.ts and analysis/stats.ts `significantlyFaster`',
    'const x = 1; // from report/stats.ts',
    "const s = 'harness/run.ts'; // a string is not a comment",
    '/** speedscope: jlfwong/speedscope src/import/chrome.ts, and meta.json, Node.js */',
    '/** core/profiles.ts `withOverrides`, then `fitTwoWay` and renderPage() */',
  ].join('\n');
  const got = referenceFindings('harness/x.ts', text, resolve, known).map((f) => `${f.line} ${f.what}`);
  assert.deepEqual(got, [
    "2 names 'store/read.ts', which no file's path ends with",
    "2 names `significantlyFaster` in 'analysis/stats.ts', which does not contain it",
    "3 names 'report/stats.ts', which no file's path ends with",
    "6 names 'core/profiles.ts', which no file's path ends with",
    '6 names `fitTwoWay`, which no code of the repository has',
    '6 names `renderPage`, which no code of the repository has',
  ]);
});

test('the script exits 0 on the real harness/ and 1 on a planted "issue 12", a run id and an oversized file', () => {
  const real = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(real.status, 0, real.stdout);
  assert.match(real.stdout, /^ok: no tracker references or run ids in harness\//m);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'comments-'));
  const write = (f: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
    fs.writeFileSync(path.join(tmp, f), text);
  };
  const run = () => spawnSync(process.execPath, [script, tmp], { encoding: 'utf8' });
  try {
    write(
      'harness/core/clean.ts',
      '/** Adds two numbers (ms). */\nexport const add = (a: number, b: number) => a + b;\n',
    );
    const clean = run();
    assert.equal(clean.status, 0, clean.stdout);
    // Every long file of the real harness is missing here: listed as stale, not a failure.
    const [listed = ''] = Object.keys(LONG_FILES);
    const listedRe = listed.replace(/[./]/g, '\\$&');
    assert.match(clean.stdout, new RegExp(`^note: ${listedRe} is no longer over 500 lines`, 'm'));

    write('harness/core/a.ts', '// The warm-up rule (issue 12): 3 s.\nexport const w = 3;\n');
    const issue = run();
    assert.equal(issue.status, 1, issue.stdout);
    assert.match(issue.stdout, /^harness\/core\/a\.ts:1 +tracker reference 'issue 12'/m);
    fs.rmSync(path.join(tmp, 'harness/core/a.ts'));

    write('harness/core/b.ts', 'export const x = 1;\n/* measured in 2026-11-26T21-34-58Z-d078 */\n');
    const runId = run();
    assert.equal(runId.status, 1, runId.stdout);
    assert.match(runId.stdout, /^harness\/core\/b\.ts:2 +run id '2026-11-26T21-34-58Z-d078'/m);
    fs.rmSync(path.join(tmp, 'harness/core/b.ts'));

    write('harness/core/c.ts', '/** Like store/read.ts `readRun`. */\nexport const c = 1;\n');
    const stale = run();
    assert.equal(stale.status, 1, stale.stdout);
    assert.match(stale.stdout, /^harness\/core\/c\.ts:1 +names 'store\/read\.ts', which no file's path ends with/m);
    fs.rmSync(path.join(tmp, 'harness/core/c.ts'));

    write('harness/report/big.ts', 'export const y = 1;\n'.repeat(MAX_FILE_LINES + 1));
    write(listed, 'export const z = 1;\n'.repeat(MAX_FILE_LINES + 1));
    const big = run();
    assert.equal(big.status, 1, big.stdout);
    assert.match(big.stdout, /^harness\/report\/big\.ts:0 +501 lines, over 500/m);
    assert.doesNotMatch(big.stdout, new RegExp(`^${listedRe}:0`, 'm'), 'a file on the exception list passes');
    assert.match(big.stdout, /^1 finding\(s\) in harness\/$/m);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
