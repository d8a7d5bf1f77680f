/**
 * Size limit of server logs: a contender that prints 100 MB must not leave a
 * 100 MB file in `results/` (GitHub refuses files over 100 MB). `capLog` keeps the first
 * `maxHeadBytes` and the last bytes of the file, joined by one line that says how many bytes were
 * cut. The result is never larger than `maxHeadBytes + maxTailBytes`, so capping twice changes
 * nothing (idempotent): the scheduler calls it after each server stops and server.stop() does too.
 */
import fs from 'node:fs';

/** 1 MiB, the default head and tail kept by capLog. */
export const MIB = 1024 * 1024;

/** The line capLog puts where it cut, e.g. "[bench: 98765432 bytes cut …]". */
export function cutLine(bytes: number, headBytes: number, tailBytes: number): string {
  return `\n[bench: ${bytes} bytes cut from this log; the harness keeps the first ${headBytes} and the last ${tailBytes} bytes of every server log]\n`;
}

function readRange(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * Caps `file` in place (written to a temporary file, then renamed over it). Returns the number
 * of bytes cut: 0 when the file is missing or already within `maxHeadBytes + maxTailBytes`.
 * The cut falls on line ends where one is near (within 4 KiB), so no line is split needlessly.
 */
export function capLog(file: string, maxHeadBytes = MIB, maxTailBytes = MIB): number {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return 0;
  }
  if (size <= maxHeadBytes + maxTailBytes) return 0;
  const fd = fs.openSync(file, 'r');
  let head: Buffer;
  let tail: Buffer;
  try {
    // Reserve room for the cut line inside the tail budget (its digits cannot exceed the size's).
    const reserve = Buffer.byteLength(cutLine(size, maxHeadBytes, maxTailBytes));
    const tailBudget = Math.max(0, maxTailBytes - reserve);
    head = readRange(fd, 0, maxHeadBytes);
    const nl = head.lastIndexOf(0x0a);
    if (nl >= 0 && head.length - nl - 1 <= 4096) head = head.subarray(0, nl + 1);
    tail = readRange(fd, size - tailBudget, tailBudget);
    const first = tail.indexOf(0x0a);
    if (first >= 0 && first < 4096) tail = tail.subarray(first + 1);
  } finally {
    fs.closeSync(fd);
  }
  const cut = size - head.length - tail.length;
  const tmp = `${file}.cap-${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.concat([head, Buffer.from(cutLine(cut, maxHeadBytes, maxTailBytes)), tail]));
  fs.renameSync(tmp, file);
  return cut;
}

/**
 * Caps server log `file` while the server appends to it: every `everyMs` (default 250 ms), once
 * the file is over `maxBytes` (default 8 MiB), it keeps the first `headBytes` and the last
 * `tailBytes` (1 MiB each) with a cut line between them, truncating the file in place so that the
 * server's next appends (its descriptor is O_APPEND) follow them. A flood of 50 MB/s thus never
 * holds more than about maxBytes + 13 MB on disk; capLog still caps the file at stop. Returns the
 * function that stops watching (the timer does not keep the process alive).
 */
export function capWhileWritten(
  file: string,
  o: { everyMs?: number; maxBytes?: number; headBytes?: number; tailBytes?: number } = {},
): () => void {
  const { everyMs = 250, maxBytes = 8 * MIB, headBytes = MIB, tailBytes = MIB } = o;
  let cut = 0;
  const timer = setInterval(() => {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r+');
      const size = fs.fstatSync(fd).size;
      if (size <= maxBytes) return;
      const tail = readRange(fd, size - tailBytes, tailBytes);
      cut += size - headBytes - tailBytes;
      const line = Buffer.from(
        `\n[bench: ${cut} bytes cut from this log while the server wrote it; the harness keeps the first ${headBytes} and the last bytes]\n`,
      );
      fs.ftruncateSync(fd, headBytes);
      fs.writeSync(fd, Buffer.concat([line, tail]), 0, line.length + tail.length, headBytes);
    } catch {
      /* gone or not ours: nothing to cap */
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
