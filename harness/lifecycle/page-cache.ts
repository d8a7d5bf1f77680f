/**
 * Evicting files from the OS page cache without root: `posix_fadvise(POSIX_FADV_DONTNEED)` on
 * every file under the given folders (Node has no binding for it, so one `python3` process does
 * it: os.posix_fadvise). Pages that a running process maps (the Node binary the harness itself
 * runs on) or that are dirty stay cached; the rest must be read from disk by the next start.
 */
import { spawnSync } from 'node:child_process';

const SCRIPT = `
import os, sys
n = 0
for top in sys.argv[1:]:
    for d, _, files in os.walk(top):
        for f in files:
            try:
                fd = os.open(os.path.join(d, f), os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    n += 1
                finally:
                    os.close(fd)
            except OSError:
                pass
print(n)
`;

/** Evicts the files under `dirs` (absolute); the number of files advised, or null when python3 is missing or failed. */
export function evictPageCache(dirs: string[]): number | null {
  if (!dirs.length) return 0;
  const r = spawnSync('python3', ['-c', SCRIPT, ...dirs], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) return null;
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) ? n : null;
}
