// docs/extending.md, applied as written: in a temporary copy of the repository, the guide's own
// marked code blocks (`<!-- extending-test: new FILE -->` or `… insert FILE after "LINE" -->`
// before a fenced block) add the toy exporter and the toy profile; then the harness uses them
// (`list` shows the profile, a one-cell `bench --profile toy` runs it, `export --format toy`
// prints the exporter's lines for that cell, an unknown format is still refused), and the only
// files that changed are the ones the guide's table names for those two rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers.ts';
import { copyRepository, runNode } from '../repo-copy.ts';

/** One marked block of the guide: create `file` with `code`, or insert `code` after the line `after`. */
interface GuideEdit {
  file: string;
  after: string | null;
  code: string;
}

const MARK = /<!-- extending-test: (new|insert) (\S+)(?: after "(.*)")? -->\n```[a-z]*\n([\s\S]*?)```/g;

/** The marked edits of docs/extending.md, in order. */
function guideEdits(): GuideEdit[] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'extending.md'), 'utf8');
  return [...text.matchAll(MARK)].map(([, kind, file, after, code]) => ({
    file: file ?? '',
    after: kind === 'insert' ? (after ?? null) : null,
    code: code ?? '',
  }));
}

/** Applies one edit in `dir`; fails when the anchor line is not exactly once in the file. */
function apply(dir: string, e: GuideEdit): void {
  const file = path.join(dir, e.file);
  if (e.after === null) {
    assert.ok(!fs.existsSync(file), `${e.file} exists already`);
    fs.writeFileSync(file, e.code);
    return;
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l === e.after ? [i] : []));
  assert.equal(at.length, 1, `${e.file}: the guide's anchor line ${JSON.stringify(e.after)} is not there exactly once`);
  lines.splice(at[0]! + 1, 0, ...e.code.replace(/\n$/, '').split('\n'));
  fs.writeFileSync(file, lines.join('\n'));
}

test('the guide names the toy exporter and toy profile edits, and each of its table rows names real files', () => {
  const edits = guideEdits();
  assert.deepEqual(
    edits.map((e) => e.file),
    [
      'harness/report/exporters/toy.ts',
      'harness/report/exporters/exporter-registry.ts',
      'harness/report/exporters/exporter-registry.ts',
      'harness/core/profiles.ts',
    ],
  );
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'extending.md'), 'utf8');
  const table = guide.slice(guide.indexOf('| extension |'), guide.indexOf('\n\n', guide.indexOf('| extension |')));
  const named = [...table.matchAll(/`((?:harness|scenarios|contenders|compose)\/[^`<>]+)`/g)].map((m) => m[1]);
  assert.ok(named.length >= 15, `${named.length} files named`);
  for (const f of named) assert.ok(fs.existsSync(path.join(ROOT, f!)), `the guide names ${f}, which does not exist`);
});

test('a toy exporter and a toy profile added as docs/extending.md says: the harness uses both, nothing else changed', async () => {
  const repo = copyRepository('extending');
  for (const e of guideEdits()) apply(repo.dir, e);
  const env = { BENCH_LOCK_FILE: path.join(repo.dir, 'bench.lock') };
  const cli = (...args: string[]) => runNode(repo.dir, ['harness/cli.ts', ...args], env);

  const list = await cli('list');
  assert.equal(list.code, 0, list.out);
  assert.match(list.out, /^Profiles:[\s\S]*^ {2}toy +.*a toy profile: 10 connections/m);

  const bench = await cli('bench', 'node-http', '--scenario', 'ping', '--profile', 'toy', '--seed', '1');
  assert.equal(bench.code, 0, bench.out.split('\n').slice(-40).join('\n'));

  const exported = await cli('export', '--format', 'toy');
  assert.equal(exported.code, 0, exported.out);
  const text = exported.out;
  const lines = text.trimEnd().split('\n');
  assert.equal(lines[0], 'toy export');
  assert.equal(lines.length, 2, text);
  const m = /^node-http ping toy (\d+)$/.exec(lines[1]!);
  assert.ok(m && Number(m[1]) > 0, `a measured cell of the toy profile: ${lines[1]}`);

  const unknown = await cli('export', '--format', 'toys');
  assert.equal(unknown.code, 2, unknown.out);
  assert.match(unknown.out, /--format must be one of md, terminal, html, json, csv, toy; got 'toys'/);

  assert.deepEqual(repo.changedFiles(), [
    'harness/core/profiles.ts',
    'harness/report/exporters/exporter-registry.ts',
    'harness/report/exporters/toy.ts',
  ]);
});
