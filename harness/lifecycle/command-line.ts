/** Command lines: pinning one to CPUs with taskset, and finding a program on PATH. */
import fs from 'node:fs';
import path from 'node:path';

/** A command line: the program, then its arguments. */
export type Argv = [command: string, ...args: string[]];

/** Prefixes argv with `taskset -c <cpus>` when `cpus` is set. */
export function pinnedCommand(cpus: string | null, argv: Argv): Argv;
export function pinnedCommand(cpus: string | null, argv: string[]): string[];
export function pinnedCommand(cpus: string | null, argv: string[]): string[] {
  return cpus ? ['taskset', '-c', cpus, ...argv] : argv;
}

/** The first executable `name` on PATH, or null. */
export function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}
