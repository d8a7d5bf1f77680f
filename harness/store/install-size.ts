/**
 * What a contender installs: the packages its dependencies pull in, resolved through the root
 * `package-lock.json` (npm workspaces, lockfileVersion 2 or 3: its `packages` map keyed by install
 * path), and their size in `node_modules` on disk.
 *
 * From the contender's workspace entry (`contenders/<name>`), every `dependencies`,
 * `optionalDependencies` and non-optional `peerDependencies` name is resolved the way Node does
 * (the package's own `node_modules`, then each parent's, then the root's); a workspace link
 * (`link: true`) is followed to its folder, so a shared workspace package (`contenders/_lib-*`)
 * counts once for every contender that uses it. `devDependencies` are not followed. A package
 * counts once however many paths reach it; an optional dependency that is not installed (another
 * platform's binary) counts nothing. Sizes are the apparent sizes of the package's files (as
 * `du --apparent-size -b`), without its nested `node_modules` (those packages count on their own),
 * symbolic links not followed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One contender's install: `packages` distinct packages (not counting itself), `bytes` on disk. */
export interface InstallSize {
  packages: number;
  bytes: number;
  /** Dependency names that the lockfile could not resolve (a lockfile out of date: `npm install`). */
  unresolved: string[];
}

interface LockEntry {
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Where `name` resolves from install path `from` ('' = root), or null. */
function resolveFrom(pkgs: Record<string, LockEntry>, from: string, name: string): string | null {
  let p = from;
  for (;;) {
    const cand = p ? `${p}/node_modules/${name}` : `node_modules/${name}`;
    if (pkgs[cand]) return cand;
    if (!p) return null;
    const i = p.lastIndexOf('/node_modules/');
    p = i >= 0 ? p.slice(0, i) : '';
  }
}

/** Apparent size of the files under `dir`, bytes, skipping `node_modules` folders and not following links. */
export function dirBytes(dir: string): number {
  let sum = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') sum += dirBytes(p);
    } else if (e.isFile()) {
      try {
        sum += fs.lstatSync(p).size;
      } catch {
        /* gone */
      }
    }
  }
  return sum;
}

/** The lockfile's `packages` map of `rootDir`; {} when there is none or it cannot be parsed. */
function lockPackages(rootDir: string): Record<string, LockEntry> {
  try {
    return JSON.parse(fs.readFileSync(path.join(rootDir, 'package-lock.json'), 'utf8')).packages ?? {};
  } catch {
    return {};
  }
}

/** The names a package's entry asks to be installed beside it (see the module comment). */
function wanted(e: LockEntry): { name: string; optional: boolean }[] {
  const peers = Object.keys(e.peerDependencies ?? {}).filter((n) => !e.peerDependenciesMeta?.[n]?.optional);
  return [
    ...Object.keys(e.dependencies ?? {}).map((name) => ({ name, optional: false })),
    ...Object.keys(e.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
    ...peers.map((name) => ({ name, optional: false })),
  ];
}

/**
 * The install paths (relative to `rootDir`, e.g. `node_modules/express`, `contenders/_lib-x`) of
 * every package contender folder `dir` pulls in (not itself; see the module comment), and the
 * dependency names the lockfile `pkgs` could not resolve.
 */
export function installClosure(
  rootDir: string,
  dir: string,
  pkgs: Record<string, LockEntry> = lockPackages(rootDir),
): { locations: string[]; unresolved: string[] } {
  const start = path.relative(rootDir, dir).split(path.sep).join('/');
  const seen = new Set<string>([start]);
  const unresolved = new Set<string>();
  const queue = [start];
  for (let loc = queue.pop(); loc !== undefined; loc = queue.pop()) {
    for (const w of wanted(pkgs[loc] ?? {})) {
      let at = resolveFrom(pkgs, loc, w.name);
      const link = at ? pkgs[at] : undefined;
      if (at && link?.link) at = link.resolved ?? null;
      if (!at || !fs.existsSync(path.join(rootDir, at))) {
        if (!w.optional) unresolved.add(w.name);
        continue;
      }
      if (seen.has(at)) continue;
      seen.add(at);
      queue.push(at);
    }
  }
  seen.delete(start);
  return { locations: [...seen], unresolved: [...unresolved].sort() };
}

/**
 * The install size of each contender folder in `contenderDirs` (absolute, inside `rootDir`),
 * keyed by folder name. A contender without a lockfile entry has 0 packages.
 */
export function installSizes(rootDir: string, contenderDirs: string[]): Record<string, InstallSize> {
  const pkgs = lockPackages(rootDir);
  const sizes = new Map<string, number>();
  const sizeOf = (loc: string) => {
    const known = sizes.get(loc);
    if (known !== undefined) return known;
    const b = dirBytes(path.join(rootDir, loc));
    sizes.set(loc, b);
    return b;
  };
  const out: Record<string, InstallSize> = {};
  for (const dir of contenderDirs) {
    const { locations, unresolved } = installClosure(rootDir, dir, pkgs);
    out[path.basename(dir)] = {
      packages: locations.length,
      bytes: locations.reduce((a, loc) => a + sizeOf(loc), 0),
      unresolved,
    };
  }
  return out;
}
