/**
 * User-facing errors of the harness.
 *
 * A `UserError` carries a message that says what was wrong and what to do; the CLI prints it
 * without a stack trace and exits with `exitCode` (2 by default: bad input; see exit-codes.ts).
 */
import { EXIT } from './exit-codes.ts';
import { didYouMean } from './suggest.ts';

export class UserError extends Error {
  exitCode: number;
  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/**
 * Throws a UserError for an unknown name: "unknown contender 'fastfy'. Did you mean 'fastify'?
 * Valid contenders: …" (the suggestion only when one is close; see suggest.ts).
 */
export function unknownName(kind: string, name: string, valid: string[]): never {
  throw new UserError(
    `unknown ${kind} '${name}'.${didYouMean(name, valid)} Valid ${kind}s: ${valid.join(', ') || '(none)'}`,
  );
}

/** errno codes that mean "this folder cannot take the write" (full, over quota, read-only, not allowed). */
export const STORAGE_CODES = ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM'] as const;

/** System calls of file writes that may fail without naming a path (writeSync: `write`). */
const FS_SYSCALLS = new Set([
  'write',
  'open',
  'mkdir',
  'rename',
  'copyfile',
  'unlink',
  'rmdir',
  'fsync',
  'ftruncate',
  'close',
]);

/** Which folder a failed write was in: the results folder, the temp folder, or an output file's folder. */
export type StorageKind = 'results' | 'temp' | 'output';

/**
 * A write the file system refused (full disk, quota, read-only mount, permissions): bad
 * environment, not a bug, so a UserError (exit 2) with one line naming the folder and what to do,
 * e.g. "results folder /x is full (ENOSPC): free space or pass --results-dir <another folder>".
 */
export class StorageError extends UserError {
  code: string;
  folder: string;
  constructor(kind: StorageKind, folder: string, code: string, file?: string) {
    const what = { results: 'results folder', temp: 'temp folder', output: 'output folder' }[kind];
    const elsewhere = {
      results: 'pass --results-dir <another folder>',
      temp: 'set TMPDIR to another folder',
      output: 'choose another --out',
    }[kind];
    const state =
      code === 'ENOSPC'
        ? `is full (ENOSPC): free space or ${elsewhere}`
        : code === 'EDQUOT'
          ? `is over its disk quota (EDQUOT): free space or ${elsewhere}`
          : code === 'EROFS'
            ? `is on a read-only file system (EROFS): remount it read-write or ${elsewhere}`
            : `is not writable (${code}${file && file !== folder ? ` on ${file}` : ''}): fix its permissions or ${elsewhere}`;
    super(`${what} ${folder} ${state}`);
    this.name = 'StorageError';
    this.code = code;
    this.folder = folder;
  }
}

/**
 * `e` as a StorageError when it is a file-system error (it names a path, or its syscall is a file
 * write) with a STORAGE_CODES code (already a StorageError: returned as is); null otherwise. `kind` and `folder` name where the write went.
 */
export function asStorageError(e: unknown, kind: StorageKind, folder: string): StorageError | null {
  if (e instanceof StorageError) return e;
  const x = e as NodeJS.ErrnoException | null;
  const code = x?.code;
  if (typeof code !== 'string' || !(STORAGE_CODES as readonly string[]).includes(code)) return null;
  // A file-system call only (an EPERM of kill() is not about a folder).
  if (typeof x?.path !== 'string' && !FS_SYSCALLS.has(x?.syscall ?? '')) return null;
  return new StorageError(kind, folder, code, (e as NodeJS.ErrnoException).path);
}
