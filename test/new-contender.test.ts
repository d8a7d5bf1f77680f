// "A new contender is one folder": in a temporary copy of the repository (its tracked and
// not-ignored files, node_modules symlinked), `node harness/cli.ts new my-stack`, then
// `verify my-stack`, then test/compose.test.ts and `node compose/gen-compose.ts --check` all pass,
// and the only files that changed are the new folder and the two files the compose generator
// writes (compose/docker-compose.yml, compose/README.md). No `npm install`: the template has no
// dependencies (the CLI tells the user to run it for package-lock.json before committing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT, tmpDir } from './helpers.ts';

/** Folders a run may write that are not part of the repository's files. */
const SCRATCH = /^(node_modules|\.git|results|test-output|\.tools)(\/|$)/;

/** The repository's files as git sees them: tracked plus untracked-but-not-ignored, that exist. */
function repositoryFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `git ls-files: ${r.stderr}`);
  return [...new Set(r.stdout.split('\0').filter(Boolean))]
    .filter((f) => !SCRATCH.test(f))
    .filter((f) => fs.lstatSync(path.join(ROOT, f), { throwIfNoEntry: false })?.isFile());
}

/** sha256 of every file under `root` outside SCRATCH, by relative path. */
function hashTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (SCRATCH.test(rel)) continue;
    const file = path.join(root, rel);
    if (!fs.lstatSync(file).isFile()) continue;
    out.set(rel, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  }
  return out;
}

/** Runs `node ...args` in `cwd` with the pinned Node, without the caller's BENCH_* folders. */
function run(cwd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('BENCH_') || k.startsWith('NODE_TEST')) delete env[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stderr.on('data', (b) => {
      out += b;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('`new my-stack` in a copy of the repository: verify and the compose checks pass with nothing else edited', async () => {
  const copy = tmpDir('new-contender');
  const files = repositoryFiles();
  assert.ok(files.includes('harness/cli.ts') && files.includes('contenders/_template/contender.json'));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  // test/compose.test.ts asks git whether compose/.env is ignored: give the copy its own repository.
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: copy }).status, 0, 'git init in the copy');
  const before = hashTree(copy);

  const made = await run(copy, ['harness/cli.ts', 'new', 'my-stack']);
  assert.equal(made.code, 0, made.out);
  assert.match(made.out, /compose: service my-stack on 127\.0\.0\.1:18\d{3}/);
  assert.match(made.out, /run `npm install` at the repository root.*package-lock\.json/);

  const verified = await run(copy, ['harness/cli.ts', 'verify', '--wait', 'my-stack']);
  assert.equal(verified.code, 0, verified.out);
  assert.equal((verified.out.match(/^\s+pass\s/gm) ?? []).length, 6, verified.out);

  const check = await run(copy, ['compose/gen-compose.ts', '--check']);
  assert.equal(check.code, 0, check.out);
  const composeTest = await run(copy, ['--test', '--test-concurrency=1', 'test/compose.test.ts']);
  assert.equal(composeTest.code, 0, composeTest.out.split('\n').slice(-60).join('\n'));
  assert.match(composeTest.out, /# fail 0|ℹ fail 0/);

  const after = hashTree(copy);
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((f) => before.get(f) !== after.get(f))
    .sort();
  assert.deepEqual(changed, [
    'compose/README.md',
    'compose/docker-compose.yml',
    'contenders/my-stack/README.md',
    'contenders/my-stack/contender.json',
    'contenders/my-stack/package.json',
    'contenders/my-stack/server.js',
  ]);
  const compose = fs.readFileSync(path.join(copy, 'compose', 'docker-compose.yml'), 'utf8');
  assert.match(compose, /^ {2}my-stack:\n {4}<<: \*contender\n {4}build: \{[^\n]*CONTENDER: my-stack \}/m);
});
