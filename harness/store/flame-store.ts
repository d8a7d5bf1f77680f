/**
 * The flame graph files of `just why` ("why a stack is slow"): the small, committed
 * form of a cell's CPU profile, cut to its measured window, that the HTML report draws. Layout
 * (known only to harness/store/):
 *
 *   results/why/runs/<run-id>/flames/<cell-id>.folded
 *
 * Format: Brendan Gregg's folded stacks (github.com/brendangregg/FlameGraph, stackcollapse
 * output: one line per stack, frames root first joined by `;`, a space, an integer), which
 * speedscope, inferno and flamegraph.pl open as they are. The integer is µs of self time of the
 * profile's main thread in the measured window, `(idle)` left out (busy time; V8's sampler counts
 * wall time). A first line starting with `#` says what the file holds and how many stacks and µs
 * follow; those tools skip it (it ends in a word, so it never reads as a stack). The reader
 * checks both counts, so a truncated file is a reason, never a wrong graph. Frame names come from
 * analysis/flame.ts (`[bucket] function file:line`); `;`, CR and LF never appear inside a frame.
 *
 * Errors: `writeFolded` throws StorageError when the folder refuses the file; `readFolded` never
 * throws: a missing, truncated or garbled file is `{ ok: false, reason: "flame graph not shown: …" }`.
 */
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { asStorageError } from '../core/errors.ts';
import { mkdirp } from './result-files.ts';

/** One folded stack: its frames (root first, the `(root)` node left out) and its self time, µs (integer ≥ 1). */
export interface FoldedStack {
  frames: string[];
  us: number;
}

/** A cell's folded stacks as stored: what they are of, the trimming share and the stacks. */
export interface FoldedFile {
  cellId: string;
  runId: string;
  /** Frames whose inclusive time was below this share of `totalUs` were folded into a `[(small)]` child. */
  minShare: number;
  /** Σ stacks[].us: busy self time in the window, µs. */
  totalUs: number;
  stacks: FoldedStack[];
}

/** A stored flame graph, or why it cannot be shown. */
export type FoldedRead = ({ ok: true } & FoldedFile) | { ok: false; reason: string };

const HEADER =
  /^# bakeoff folded stacks v1; cell (\S+); why run (\S+); (\d+) stacks; (\d+) µs of busy self time in the measured window; frames under ([\d.]+)% of it folded into their caller's \[\(small\)\] child; unit µs$/;

/** The file of a cell's folded stacks inside a why run folder. */
export function foldedFileOf(runDir: string, cellId: string): string {
  return path.join(runDir, 'flames', `${cellId}.folded`);
}

/** A frame name made safe for the folded format: `;` → `,`, line breaks and runs of blanks → one space. */
export function foldedFrame(name: string): string {
  return name.replace(/;/g, ',').replace(/\s+/g, ' ').trim() || '(anonymous)';
}

/** The text of a folded file (see the module comment): the header, then one line per stack. */
export function foldedText(f: FoldedFile): string {
  const total = f.stacks.reduce((s, x) => s + x.us, 0);
  const head = `# bakeoff folded stacks v1; cell ${f.cellId}; why run ${f.runId}; ${f.stacks.length} stacks; ${total} µs of busy self time in the measured window; frames under ${+(f.minShare * 100).toFixed(3)}% of it folded into their caller's [(small)] child; unit µs`;
  return `${[head, ...f.stacks.map((s) => `${s.frames.map(foldedFrame).join(';')} ${Math.round(s.us)}`)].join('\n')}\n`;
}

/**
 * Writes `<runDir>/flames/<cellId>.folded` (atomic) and returns the path relative to `runDir`.
 * Throws StorageError when the folder refuses it.
 */
export function writeFolded(runDir: string, f: FoldedFile): string {
  const file = foldedFileOf(runDir, f.cellId);
  try {
    mkdirp(path.dirname(file));
    writeFileAtomic.sync(file, foldedText(f));
  } catch (e) {
    throw asStorageError(e, 'results', path.dirname(path.dirname(runDir))) ?? e;
  }
  return path.relative(runDir, file);
}

const notShown = (why: string): { ok: false; reason: string } => ({
  ok: false,
  reason: `flame graph not shown: ${why}`,
});

/** Parses the text of a folded file (module comment). Never throws; `name` is used in reasons. */
export function parseFolded(text: string, name = 'the file'): FoldedRead {
  const lines = text.split('\n');
  const h = HEADER.exec(lines[0] ?? '');
  if (!h) return notShown(`${name} has no bakeoff folded-stacks header (empty or not written by \`just why\`)`);
  const [, cellId = '', runId = '', n = '0', total = '0', pct = '0'] = h;
  const stacks: FoldedStack[] = [];
  for (const [i, line] of lines.slice(1).entries()) {
    if (line === '' && i === lines.length - 2) break; // the final newline
    const m = /^(.+) (\d+)$/.exec(line);
    if (!m || m[1] === undefined) return notShown(`${name} line ${i + 2} is not "frames count" (truncated?)`);
    stacks.push({ frames: m[1].split(';'), us: Number(m[2]) });
  }
  const sum = stacks.reduce((s, x) => s + x.us, 0);
  if (stacks.length !== Number(n) || sum !== Number(total))
    return notShown(
      `${name} is truncated or altered: ${stacks.length} of ${n} stacks, ${sum} of ${total} µs (the header's counts)`,
    );
  return { ok: true, cellId, runId, minShare: Number(pct) / 100, totalUs: sum, stacks };
}

/** Reads a folded file (see parseFolded). Never throws: a missing or unreadable file is a reason. */
export function readFolded(file: string): FoldedRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return notShown(`cannot read ${path.basename(file)}: ${err.code ?? err.message}`);
  }
  return parseFolded(text, path.basename(file));
}
