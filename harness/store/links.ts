/**
 * The results folder is never written through a symbolic link. A link anywhere below it
 * (`runs/<id>`, `reports`, `baselines`, a report file) may point outside it, so the harness never
 * writes, renames or deletes through one: writers call `refuseLinks` (a UserError, exit 2, naming
 * the link), sweeps skip such a folder with a warning (store/runs.ts `sweepAbandoned`), and readers
 * follow a link only when its target stays inside the results folder (`readsInside`). The results
 * folder itself may be a link: the user chose it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/errors.ts';

/**
 * The first symbolic link among the path components of `target` below `root` (`root` itself is
 * not judged), or null; the walk ends at the first component that does not exist yet.
 */
export function linkBelow(root: string, target: string): string | null {
  const rel = path.relative(root, target);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  let at = root;
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    try {
      if (fs.lstatSync(at).isSymbolicLink()) return at;
    } catch {
      return null; // not there yet: nothing below it can be a link
    }
  }
  return null;
}

/** Throws a UserError (exit 2) when `target`, about to be written, renamed or deleted, has a link below `root`. */
export function refuseLinks(root: string, target: string): void {
  const link = linkBelow(root, target);
  if (link)
    throw new UserError(
      `${link} is a symbolic link inside the results folder ${root}: the harness never writes through a link there (it may point anywhere). Remove the link, or pass --results-dir <a folder of its own>.`,
    );
}

/** True when `target` (a file or folder to read) resolves inside `root`'s real path; false when it leaves it or is unreadable. */
export function readsInside(root: string, target: string): boolean {
  try {
    const real = fs.realpathSync(target);
    const rel = path.relative(fs.realpathSync(root), real);
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  } catch {
    return false;
  }
}

/** `<root>/<name>`, a store folder about to be written (selftest, ab, why, reference); UserError when a link is below `root` on the way (refuseLinks). */
export function writableSubfolder(root: string, name: string): string {
  const dir = path.join(root, name);
  refuseLinks(root, dir);
  return dir;
}
