/**
 * Writing a file the user named (`export --out FILE`, `compare --out FILE`, the files of
 * `leaderboard --run ID --out DIR`) without ever replacing what is not a regular file.
 *
 * - A new name or a regular file: written atomically (write-file-atomic: a temp file beside it,
 *   then a rename), so a reader never sees half a report.
 * - A character device (/dev/null, /dev/stdout on a terminal, /dev/full) or a FIFO (a named pipe,
 *   `--out >(gzip > x)`): written through, never renamed over (the temp-and-rename would turn
 *   /dev/full into a regular file). A FIFO that no process reads is refused at once (ENXIO)
 *   rather than waited on.
 * - A folder, a socket or a block device: refused.
 *
 * Every refusal and every failed write is a UserError (exit 2) in one line naming the file and
 * what to do; ENOSPC, EDQUOT, EROFS, EACCES and EPERM on a regular path are a StorageError naming
 * its folder (core/errors.ts), as for the results folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { asStorageError, UserError } from './errors.ts';

/** What `stat` says `file` is, in words; null when nothing is there (a new file). */
export function fileKind(file: string): { kind: string; writeThrough: boolean; regular: boolean } | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw outputError(e, file, '--out');
  }
  if (st.isFile()) return { kind: 'a regular file', writeThrough: false, regular: true };
  if (st.isCharacterDevice()) return { kind: 'a character device', writeThrough: true, regular: false };
  if (st.isFIFO()) return { kind: 'a FIFO (named pipe)', writeThrough: true, regular: false };
  if (st.isDirectory()) return { kind: 'a folder', writeThrough: false, regular: false };
  if (st.isSocket()) return { kind: 'a socket', writeThrough: false, regular: false };
  if (st.isBlockDevice()) return { kind: 'a block device', writeThrough: false, regular: false };
  return { kind: 'not a regular file', writeThrough: false, regular: false };
}

/** "ENOENT: no such file or directory" from a Node file-system error (without its temp-file path). */
function errnoText(e: unknown): string {
  const x = e as NodeJS.ErrnoException;
  return typeof x?.code === 'string' ? (x.message.split(',')[0] ?? x.code) : String((e as Error)?.message ?? e);
}

/**
 * `e` (a failed write of `file`) as the error to throw: a StorageError naming the folder for
 * ENOSPC, EDQUOT, EROFS, EACCES or EPERM on a regular path, a one-line UserError for any other
 * file-system error ("cannot write --out /proc/version (ENOENT: no such file or directory): …"),
 * `e` itself when it is not a file-system error (a bug).
 */
export function outputError(e: unknown, file: string, flag: string, special?: string): Error {
  if (e instanceof UserError) return e;
  if (typeof (e as NodeJS.ErrnoException)?.code !== 'string') return e as Error;
  if (!special) {
    const storage = asStorageError(e, 'output', path.dirname(path.resolve(file)));
    if (storage) return storage;
  }
  // /proc, /sys: the file is there, but its folder takes no temp file for the atomic write.
  const noNewFile = !special && (e as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync(file);
  const why = noNewFile
    ? `its folder ${path.dirname(path.resolve(file))} takes no new file (ENOENT), as /proc and /sys do not`
    : errnoText(e);
  return new UserError(
    `cannot write ${flag} ${file}${special ? ` (${special})` : ''}: ${why}. Choose another ${flag}: a file in a folder you can write.`,
  );
}

/** Writes `text` through an existing character device or FIFO (opened without create or truncate). */
function writeThrough(file: string, text: string, kind: string, flag: string): void {
  if (kind.startsWith('a FIFO')) {
    // Opening a FIFO for writing waits for a reader: ask first, without waiting.
    try {
      fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENXIO')
        throw new UserError(
          `${flag} ${file} is ${kind} that no process reads (ENXIO): start its reader first, or choose another ${flag}.`,
        );
      throw outputError(e, file, flag, kind);
    }
  }
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY);
    const buf = Buffer.from(text);
    for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off);
  } catch (e) {
    throw outputError(e, file, flag, kind);
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * Writes `text` to the user-named `file` (module doc): atomically when it is new or a regular file,
 * through it when it is a character device or a FIFO, never replacing it; UserError (exit 2) when
 * it is a folder, a socket or a block device, or when the write fails. `flag` names the option in
 * messages (default `--out`).
 */
export function writeOutputFile(file: string, text: string, flag = '--out'): void {
  const what = fileKind(file);
  if (what && !what.regular && !what.writeThrough)
    throw new UserError(
      `${flag} ${file} is ${what.kind}: the harness writes a new or regular file, or through a character device (/dev/null) or a FIFO, and never replaces anything else. Choose another ${flag}.`,
    );
  if (what?.writeThrough) {
    writeThrough(file, text, what.kind, flag);
    return;
  }
  try {
    writeFileAtomic.sync(file, text);
  } catch (e) {
    throw outputError(e, file, flag);
  }
}
