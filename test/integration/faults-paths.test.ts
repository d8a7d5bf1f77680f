/**
 * Faults, round three (paths and user mistakes; docs/faults.md): `--out` never replaces what is not
 * a regular file (core/output-file.ts); run ids and baseline names are names, never paths
 * (store/runs.ts `storeName`); a contender folder without package.json is a bad contender; a
 * `--results-dir` that is a file, a device or a folder without write permission is exit 2 for
 * every command (store/runs.ts `checkResultsDir`), never 70; `compare A A` says both sides are the
 * same run. Real CLI, real special files (/dev/full, /dev/null, a FIFO, a Unix socket, /proc).
 *
 * "Without write permission" as root: the folder is mode 0555 and the CLI runs under `setpriv
 * --bounding-set -dac_override,-dac_read_search`, so root's override of file modes is gone and the
 * kernel answers EACCES as it would to any user (skipped without root or setpriv).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { openRun, readRun } from '../../harness/store/runs.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { type CliResult, ROOT, runCli, tmpDir } from '../helpers.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');

/** No stack frame in the output. */
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /, `no stack trace:\n${s}`);

/** The `error: …` lines of stderr: exactly one, returned. */
function oneErrorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('error:') || l.startsWith('internal error'));
  assert.equal(lines.length, 1, stderr);
  return lines[0] ?? '';
}

/** The RunInit of a default meta (fixtures.ts makeMeta). */
function init() {
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...rest } = makeMeta();
  return rest;
}

/** A results folder with complete runs `ids` (one cell each). */
function resultsWith(prefix: string, ids: string[]): string {
  const results = tmpDir(prefix);
  for (const id of ids) {
    const w = openRun(results, init(), id);
    w.writeCell(makeCell({ cellId: 'a__ping', runId: id }));
    w.finish('complete');
  }
  return results;
}

/** What `stat` says `p` is. */
function kindOf(p: string): string {
  const st = fs.statSync(p);
  return st.isFile()
    ? 'file'
    : st.isCharacterDevice()
      ? 'char'
      : st.isFIFO()
        ? 'fifo'
        : st.isSocket()
          ? 'socket'
          : st.isDirectory()
            ? 'dir'
            : 'other';
}

test('export --out writes through /dev/null and a FIFO, refuses /dev/full, a FIFO without reader, a socket, a folder and /proc/version (exit 2, one line), and never replaces them', async (t) => {
  const results = resultsWith('out-special', ['run-a']);
  const exp = (out: string) => runCli(['--results-dir', results, 'export', '--format', 'csv', '--out', out]);

  const nul = await exp('/dev/null');
  assert.equal(nul.code, 0, nul.stderr);
  assert.equal(kindOf('/dev/null'), 'char');

  const full = await exp('/dev/full');
  assert.equal(full.code, 2, full.stderr);
  assert.match(oneErrorLine(full.stderr), /cannot write --out \/dev\/full \(a character device\): ENOSPC/);
  noStack(full.stderr);
  assert.equal(kindOf('/dev/full'), 'char', '/dev/full is still a device (it became a 1,038-byte file before)');

  const dir = tmpDir('out-special-files');
  const fifo = path.join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  const t0 = performance.now();
  const alone = await exp(fifo);
  assert.equal(alone.code, 2, alone.stderr);
  assert.match(oneErrorLine(alone.stderr), /is a FIFO \(named pipe\) that no process reads \(ENXIO\)/);
  assert.ok(performance.now() - t0 < 10_000, 'refused at once, not a wait for a reader');
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  let got = '';
  reader.stdout.on('data', (b) => {
    got += b;
  });
  const readerDone = new Promise((resolve) => reader.on('close', resolve));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const through = await exp(fifo);
  await readerDone;
  assert.equal(through.code, 0, through.stderr);
  assert.match(got, /^run_id,/, 'the reader got the CSV');
  assert.equal(kindOf(fifo), 'fifo', 'still a FIFO');

  const sock = path.join(dir, 'sock');
  const server = net.createServer().listen(sock);
  t.after(() => server.close());
  await new Promise((resolve) => server.on('listening', resolve));
  const onSocket = await exp(sock);
  assert.equal(onSocket.code, 2, onSocket.stderr);
  assert.match(oneErrorLine(onSocket.stderr), /--out .*sock is a socket: .*never replaces anything else/);
  assert.equal(kindOf(sock), 'socket');

  const onDir = await exp(dir);
  assert.equal(onDir.code, 2);
  assert.match(oneErrorLine(onDir.stderr), /is a folder/);

  const proc = await exp('/proc/version');
  assert.equal(proc.code, 2, proc.stderr);
  assert.match(oneErrorLine(proc.stderr), /cannot write --out \/proc\/version: its folder \/proc takes no new file/);
  noStack(proc.stderr);

  const missing = await exp(path.join(dir, 'no-folder', 'x.csv'));
  assert.equal(missing.code, 2);
  assert.match(oneErrorLine(missing.stderr), /cannot write --out .*no-folder\/x\.csv: ENOENT/);

  // A regular file is still replaced atomically.
  const file = path.join(dir, 'x.csv');
  fs.writeFileSync(file, 'old');
  assert.equal((await exp(file)).code, 0);
  assert.match(fs.readFileSync(file, 'utf8'), /^run_id,/);

  // compare --out and leaderboard --run --out take the same path.
  const cmp = await runCli(['--results-dir', results, 'compare', 'run-a', 'run-a', '--out', '/dev/full']);
  assert.equal(cmp.code, 2, cmp.stderr);
  assert.match(oneErrorLine(cmp.stderr), /cannot write --out \/dev\/full/);
  const lb = await runCli(['--results-dir', results, 'leaderboard', '--run', 'run-a', '--out', '/dev/null']);
  assert.equal(lb.code, 2, lb.stderr);
  assert.match(oneErrorLine(lb.stderr), /--out \/dev\/null is a character device: with --run, --out names a folder/);
  assert.equal(kindOf('/dev/null'), 'char');
});

test('names are not paths: compare ../../../etc is "no run named", nothing outside the results folder is read, nothing advises deleting it', async () => {
  const results = resultsWith('names', ['run-a', 'run-b']);
  // A complete run planted beside the results folder: a path must not reach it.
  const outside = path.join(path.dirname(results), `${path.basename(results)}-outside`);
  fs.mkdirSync(path.join(outside, 'runs'), { recursive: true });
  fs.cpSync(path.join(results, 'runs', 'run-a'), path.join(outside, 'runs', 'evil'), { recursive: true });
  process.on('exit', () => fs.rmSync(outside, { recursive: true, force: true }));

  const etc = await runCli(['--results-dir', results, 'compare', '../../../etc', 'run-b']);
  assert.equal(etc.code, 2, etc.stderr);
  const line = oneErrorLine(etc.stderr);
  assert.match(
    line,
    /no run named '\.\.\/\.\.\/\.\.\/etc': a run id is the name of a folder in .*\/runs .*Known: run-a, run-b/,
  );
  assert.doesNotMatch(etc.stderr, /meta\.json|delete/i, 'no word about /etc, no advice to delete it');
  noStack(etc.stderr);

  for (const ref of [
    `../../${path.basename(outside)}/runs/evil`,
    path.join(outside, 'runs', 'evil'),
    '/etc',
    '..',
    '.',
  ]) {
    const r = await runCli(['--results-dir', results, 'compare', ref, 'run-b']);
    assert.equal(r.code, 2, `${ref}: ${r.stderr}`);
    assert.match(oneErrorLine(r.stderr), /no run named/, ref);
  }
  assert.throws(() => readRun(results, '../../etc'), /no run named/);
  // A path to a folder directly inside <results>/runs is that run.
  const byPath = await runCli(['--results-dir', results, 'compare', path.join(results, 'runs', 'run-a'), 'run-b']);
  assert.equal(byPath.code, 0, byPath.stderr);

  for (const args of [
    ['compare', '--baseline', '../runs/run-a', 'run-b'],
    ['export', '--run', '../../etc'],
    ['leaderboard', '--run', '../../etc'],
    ['baseline', 'main', '../../etc'],
  ]) {
    const r = await runCli(['--results-dir', results, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(oneErrorLine(r.stderr), /no (run|baseline) named/, args.join(' '));
  }
  // `baseline ..` would have removed the results folder (baselines/..) before its copy.
  for (const bad of ['..', '.', '.hidden', 'a/b']) {
    const r = await runCli(['--results-dir', results, 'baseline', bad, 'run-a']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(oneErrorLine(r.stderr), /baseline name .* may use letters, digits/);
  }
  assert.ok(fs.existsSync(path.join(results, 'runs', 'run-a', 'meta.json')), 'the results folder is intact');
});

test('compare A A says both sides are the same run, never "no change"', async () => {
  const results = resultsWith('same-run', ['run-a']);
  const md = await runCli(['--results-dir', results, 'compare', 'run-a', 'run-a']);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stderr, /^warning: both sides are the same run, run-a: .*nothing was compared/m);
  assert.match(md.stdout, /Both sides are the same run, run-a: nothing was compared\./);
  assert.doesNotMatch(md.stdout, /no change/);
  const json = await runCli(['--results-dir', results, 'compare', 'run-a', 'run-a', '--format', 'json']);
  assert.equal(json.code, 0);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.sameRun, true);
  assert.deepEqual(parsed.changes, []);
  // A baseline saved from the run is the same run too.
  assert.equal((await runCli(['--results-dir', results, 'baseline', 'main', 'run-a'])).code, 0);
  const base = await runCli(['--results-dir', results, 'compare', '--baseline', 'main', 'run-a']);
  assert.match(base.stderr, /both sides are the same run, run-a \(baseline main was saved from it\)/);
  // In CI, nothing checked is not a pass.
  const ci = await runCli(['--results-dir', results, 'compare', 'run-a', 'run-a', '--fail-on-regression']);
  assert.equal(ci.code, 2);
  assert.match(
    oneErrorLine(ci.stderr),
    /same run.*With --fail-on-regression: nothing was checked, so this is not a pass/,
  );
});

test('a contender folder without package.json is a bad contender in list, verify and bench (exit 2, naming the file)', async () => {
  const contenders = tmpDir('no-package');
  const dir = path.join(contenders, 'no-pkg');
  fs.mkdirSync(dir);
  const manifest = JSON.parse(fs.readFileSync(path.join(FAULTS, 'late-wrong', 'contender.json'), 'utf8'));
  fs.writeFileSync(path.join(dir, 'contender.json'), JSON.stringify({ ...manifest, name: 'no-pkg' }));
  fs.copyFileSync(path.join(FAULTS, 'late-wrong', 'server.js'), path.join(dir, 'server.js'));
  const results = path.join(contenders, '_results');
  const file = path.join(dir, 'package.json');
  for (const args of [['list'], ['verify', 'no-pkg'], ['bench', 'no-pkg', '--profile', 'smoke', '--no-baseline']]) {
    const r = await runCli(['--contenders-dir', contenders, '--results-dir', results, ...args]);
    assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
    assert.equal(
      oneErrorLine(r.stderr),
      `error: ${file}: missing. Every contender folder needs a package.json (an npm workspace: copy contenders/_template/package.json, then run \`npm install\` at the repository root).`,
    );
    noStack(r.stderr);
  }
  assert.equal(fs.existsSync(path.join(results, 'runs')), false, 'no run folder');
  fs.writeFileSync(file, '{ "name": ');
  const bad = await runCli(['--contenders-dir', contenders, 'list']);
  assert.equal(bad.code, 2);
  assert.match(oneErrorLine(bad.stderr), /package\.json: not valid JSON/);
});

const HAVE_SETPRIV = spawnSync('setpriv', ['--version']).status === 0;
const NO_DAC =
  process.getuid?.() !== 0
    ? 'needs root (to drop its file-mode override with setpriv)'
    : !HAVE_SETPRIV
      ? 'needs setpriv (util-linux)'
      : false;

/** Runs the CLI under `setpriv` without root's override of file modes (a 0555 folder is then EACCES). */
function runCliNoDac(args: string[]): Promise<CliResult> {
  return runCli(args, {}, ['setpriv', '--bounding-set', '-dac_override,-dac_read_search']);
}

/**
 * Every command of the CLI with arguments for the sweep, and whether it writes into the results
 * folder. `tools` as `tools --check` (it would install tools); `help` is Commander's own.
 */
const SWEEP: Record<string, { args: string[]; writes: boolean }> = {
  bench: { args: ['bench', 'late-wrong', '--profile', 'smoke', '--no-baseline'], writes: true },
  'bench-all': { args: ['bench-all', '--profile', 'smoke', '--no-baseline'], writes: true },
  leaderboard: { args: ['leaderboard'], writes: true },
  verify: { args: ['verify', 'late-wrong'], writes: false },
  tools: { args: ['tools', '--check'], writes: false },
  doctor: { args: ['doctor'], writes: false },
  compare: { args: ['compare', 'run-a', 'run-b'], writes: false },
  baseline: { args: ['baseline', 'main'], writes: true },
  export: { args: ['export', '--format', 'csv'], writes: false },
  list: { args: ['list'], writes: false },
  new: { args: ['new', 'my-stack'], writes: false },
  selftest: { args: ['selftest'], writes: true },
  ab: { args: ['ab', 'late-wrong', '--ref', 'HEAD'], writes: true },
  claims: { args: ['claims'], writes: true },
  why: { args: ['why', 'late-wrong', '--scenario', 'ping'], writes: true },
  reference: { args: ['reference', 'late-wrong', '--scenario', 'ping'], writes: true },
  'reference-compare': { args: ['reference-compare', '--reference', 'ref-a', '--run', 'run-a'], writes: false },
};

test('the sweep: every command × a --results-dir that is a regular file, /dev/null, or a folder without write permission: exit 2 in one line, never 70', async (t) => {
  const help = await runCli(['--help']);
  const commands = [
    ...help.stdout.slice(help.stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)(?: \[options\]| <| \[|$| {2})/gm),
  ]
    .map((m) => m[1] ?? '')
    .filter((c) => c !== 'help');
  assert.deepEqual(
    commands.filter((c) => !SWEEP[c]),
    [],
    'every command of --help is in the sweep',
  );

  // A contenders folder with one quick fixture, so a command that got past the check does little.
  const root = tmpDir('sweep');
  const contenders = path.join(root, 'contenders');
  fs.cpSync(path.join(FAULTS, 'late-wrong'), path.join(contenders, 'late-wrong'), { recursive: true });
  const file = path.join(root, 'results.txt');
  fs.writeFileSync(file, 'not a folder\n');
  const readOnly = path.join(root, 'read-only');
  fs.mkdirSync(readOnly, { mode: 0o555 });
  fs.chmodSync(readOnly, 0o555);

  const inside = await runCli(['--results-dir', path.join(file, 'x'), 'export']);
  assert.equal(inside.code, 2);
  assert.match(
    oneErrorLine(inside.stderr),
    /--results-dir .*results\.txt\/x is inside .*results\.txt, which is a regular file/,
  );
  for (const [name, { args, writes }] of Object.entries(SWEEP)) {
    for (const results of [file, '/dev/null']) {
      const r = await runCli(['--contenders-dir', contenders, '--results-dir', results, ...args]);
      assert.equal(r.code, 2, `${name} with --results-dir ${results}: ${r.stderr}`);
      assert.match(
        oneErrorLine(r.stderr),
        /--results-dir .* (is|which is) (a regular file|a character device), not a folder/,
        name,
      );
      noStack(r.stderr);
    }
    assert.equal(kindOf('/dev/null'), 'char');
    assert.equal(fs.readFileSync(file, 'utf8'), 'not a folder\n', 'the file is untouched');
    if (NO_DAC) {
      t.diagnostic(`folder without write permission skipped: ${NO_DAC}`);
      continue;
    }
    const r = await runCliNoDac(['--contenders-dir', contenders, '--results-dir', readOnly, ...args]);
    assert.notEqual(r.code, 70, `${name}: ${r.stderr}`);
    noStack(r.stderr);
    if (writes) {
      assert.equal(r.code, 2, `${name} writes into the results folder: ${r.stderr}`);
      assert.match(
        oneErrorLine(r.stderr),
        /results folder .* is not writable \(EACCES\): fix its permissions or pass --results-dir/,
        name,
      );
    } else assert.ok(r.code === 0 || r.code === 2, `${name} only reads: ${r.code} ${r.stderr}`);
  }
  assert.deepEqual(fs.readdirSync(readOnly), [], 'nothing was written');
});
