/**
 * Node.js runtimes for the version matrix (`--node 20,22,24,26`).
 *
 * The harness itself always runs on the project's pinned Node 24. Another major is installed
 * on demand from the npm registry (the platform package `node-<platform>-<arch>`) into the
 * git-ignored `.tools/node/<version>/`; exact versions are pinned in
 * `harness/lifecycle/node-versions.json`, which only an edit changes (an unpinned major is refused). The contender's own dependencies
 * are shared; only the binary differs.
 *
 * `engineProblem` checks a contender's `engines` and those of every package it depends on
 * (from package-lock.json) against a Node version: PostGraphile needs ≥22, undici 8 ≥22.19.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import semver from 'semver';
import { ROOT } from '../core/paths.ts';
import { UserError } from '../core/errors.ts';

export interface NodeRuntime {
  major: number;
  /** "v22.21.1" */
  version: string;
  /** Absolute path of the node binary. */
  path: string;
}

export const PINS_FILE = path.join(ROOT, 'harness', 'lifecycle', 'node-versions.json');
const TOOLS_NODE = path.join(ROOT, '.tools', 'node');

/** Parses "20,22,24" into sorted unique majors; throws UserError on anything else. */
export function parseMajors(list: string): number[] {
  const majors = list
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      if (!/^\d+$/.test(x) || Number(x) < 18)
        throw new UserError(`--node takes Node.js majors like 20,22,24,26; '${x}' is not one`);
      return Number(x);
    });
  if (!majors.length) throw new UserError('--node needs at least one major, e.g. --node 22,24');
  return [...new Set(majors)].sort((a, b) => a - b);
}

/** The Node.js majors the harness can run contenders on: the pinned ones and its own. */
export function supportedMajors(): number[] {
  const own = Number(process.versions.node.split('.')[0]);
  return [...new Set([...Object.keys(readPins()).map(Number), own])].sort((a, b) => a - b);
}

function readPins(): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(PINS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

/** The runtime for `major`: the harness's own Node for its major, else installed on demand. */
export function resolveNode(major: number, log: (l: string) => void = () => {}): NodeRuntime {
  if (major === Number(process.versions.node.split('.')[0]))
    return { major, version: process.version, path: process.execPath };
  const pkg = `node-${process.platform}-${process.arch}`;
  const pins = readPins();
  const version = pins[String(major)];
  if (!version)
    throw new UserError(
      `--node ${major}: no pinned Node ${major}. Supported majors: ${supportedMajors().join(', ')} (pinned in ${path.relative(ROOT, PINS_FILE)}; add a major there by editing the file).`,
    );
  const dir = path.join(TOOLS_NODE, version);
  const bin = path.join(dir, 'node_modules', pkg, 'bin', 'node');
  if (!fs.existsSync(bin)) {
    log(`installing Node ${version} (${pkg}) into ${path.relative(ROOT, dir)}…`);
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${version}`],
      { encoding: 'utf8' },
    );
    if (r.status !== 0 || !fs.existsSync(bin))
      throw new UserError(
        `could not install ${pkg}@${version}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
      );
  }
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (out.status !== 0) throw new UserError(`${bin} does not run: ${out.stderr}`);
  return { major, version: out.stdout.trim(), path: bin };
}

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * Why `contenderDir` cannot run on Node `version` ("undici@8.12.4 requires node >=22.19.0"; its
 * package.json cannot be read), or null when its engines and all its dependencies' engines allow it.
 */
export function engineProblem(contenderDir: string, version: string, rootDir = ROOT): string | null {
  const v = semver.coerce(version)?.version ?? version;
  let own: LockEntry & { name?: string };
  try {
    own = JSON.parse(fs.readFileSync(path.join(contenderDir, 'package.json'), 'utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    // The manifest check (core/manifest.ts) names a missing package.json; here it went since.
    return `${path.join(contenderDir, 'package.json')} cannot be read (${(e as Error).message.split('\n')[0]})`;
  }
  const check = (who: string, engines: LockEntry['engines']) => {
    const range = engines && !Array.isArray(engines) ? engines.node : undefined;
    return range && !semver.satisfies(v, range, { includePrerelease: true }) ? `${who} requires node ${range}` : null;
  };
  const ownProblem = check(own.name ?? path.basename(contenderDir), own.engines);
  if (ownProblem) return ownProblem;
  let lock: { packages?: Record<string, LockEntry> } = {};
  try {
    lock = JSON.parse(fs.readFileSync(path.join(rootDir, 'package-lock.json'), 'utf8'));
  } catch {
    return null;
  }
  const pkgs = lock.packages ?? {};
  const rel = path.relative(rootDir, contenderDir).split(path.sep).join('/');
  const seen = new Set<string>();
  // npm's resolution: look in <from>/node_modules, then each parent's node_modules.
  const resolve = (from: string, name: string): string | undefined => {
    let base = from;
    for (;;) {
      const key = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (pkgs[key]) return key;
      if (!base) return undefined;
      const i = base.lastIndexOf('/node_modules/');
      base = i >= 0 ? base.slice(0, i) : '';
    }
  };
  const queue: [string, string][] = Object.keys({ ...own.dependencies }).map((d) => [rel, d]);
  for (;;) {
    const next = queue.shift();
    if (!next) break;
    const [from, name] = next;
    const key = resolve(from, name);
    const entry = key === undefined ? undefined : pkgs[key];
    if (!key || !entry || seen.has(key)) continue;
    seen.add(key);
    const p = check(`${name}@${entry.version}`, entry.engines);
    if (p) return p;
    for (const d of Object.keys(entry.dependencies ?? {})) queue.push([key, d]);
  }
  return null;
}
