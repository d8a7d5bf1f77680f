/**
 * Layout check: no two files under `harness/` share a base name (e.g. two `types.ts`), so that a file
 * name alone says which file is meant (in imports, stack traces, editors' tabs and the docs).
 * Prints each duplicated base name with its paths; exit 0 when there is none, 1 when there is any.
 *
 * Run: `node scripts/checks/check-layout.ts` (part of `just check`).
 */
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every file under `dir` (recursive, repository-relative paths, sorted), skipping `node_modules`. */
function filesUnder(dir: string, root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, root));
    else if (entry.isFile()) out.push(relative(root, path));
  }
  return out.sort();
}

/** Base names held by more than one of `paths`, each with its paths (sorted by base name). */
export function duplicateBaseNames(paths: string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const p of paths) byName.set(basename(p), [...(byName.get(basename(p)) ?? []), p]);
  return new Map([...byName].filter(([, ps]) => ps.length > 1).sort(([a], [b]) => a.localeCompare(b)));
}

function main(root = ROOT): number {
  const files = filesUnder(join(root, 'harness'), root);
  const dups = duplicateBaseNames(files);
  if (dups.size === 0) {
    console.log(`ok: no two files in harness/ share a base name (${files.length} files)`);
    return 0;
  }
  for (const [name, paths] of dups) console.log(`${name}: ${paths.join(', ')}`);
  console.log(`${dups.size} base name(s) used by more than one file in harness/: rename each file for what it is`);
  return 1;
}

if (import.meta.main) process.exitCode = main(process.argv[2] ?? ROOT);
