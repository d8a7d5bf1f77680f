/**
 * A temporary copy of the repository for tests that edit it as a user would (new-contender,
 * extending): its tracked and not-ignored files, node_modules symlinked, its own `git init`;
 * `changedFiles` lists what differs afterwards, outside the scratch folders a run may write.
 */
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

/** A copy of the repository in a temporary folder (removed at exit), and what changed in it since. */
export interface RepoCopy {
  dir: string;
  /** Relative paths added, removed or edited since the copy was made (scratch folders excepted), sorted. */
  changedFiles(): string[];
}

/** Copies the repository's files (asserting `mustHave` are among them) into a fresh folder. */
export function copyRepository(prefix: string, mustHave: string[] = ['harness/cli.ts']): RepoCopy {
  const dir = tmpDir(prefix);
  const files = repositoryFiles();
  for (const f of mustHave) assert.ok(files.includes(f), `${f} is not among the repository's files`);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  // Tests ask git about ignored files (compose/.env): give the copy its own repository.
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: dir }).status, 0, 'git init in the copy');
  const before = hashTree(dir);
  return {
    dir,
    changedFiles() {
      const after = hashTree(dir);
      return [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f)).sort();
    },
  };
}

/**
 * Runs `node ...args` in `cwd` with the pinned Node, without the caller's BENCH_* and NODE_TEST*
 * variables (plus `env`); stdout and stderr together in `out`. Killed after `timeoutMs` (5 min).
 */
export function runNode(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 300_000,
): Promise<{ code: number | null; out: string }> {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('BENCH_') || k.startsWith('NODE_TEST')) delete base[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...args], {
      cwd,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stderr.on('data', (b) => {
      out += b;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
