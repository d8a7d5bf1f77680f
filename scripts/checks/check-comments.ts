/**
 * Comment and file-size check of `harness/`: comments say what the code does now, and files stay small.
 *
 * - No tracker reference: a bare "issue N" (also "issue N.M", "issue #N", "issues N") in any file
 *   under `harness/`, comments and strings alike. The reason for a rule goes in a decision record
 *   (docs/decisions/) or docs/measurements.md, linked from the comment.
 * - No run id (`2026-11-26T21-34-58Z-d078`, the store's naming scheme): runs and their figures
 *   belong in docs/measurements.md. A placeholder at midnight (`…T00-00-00Z-…`) is an example, not a
 *   run, and is allowed (help texts and docstrings show the format with one).
 * - No comment names a file that does not exist: a `.ts`, `.cjs` or `.md` path in a comment
 *   (`analysis/stats.ts`, `docs/noise.md`, a bare `html.ts`) must be the tail of a file's path
 *   in the repository (outside node_modules), and a name in backticks right after it
 *   (`stats.ts \`median\``) must occur in that file. A path right after a GitHub `owner/name`
 *   is another project's and is not checked. A function or variable a comment names, as
 *   `camelCase` in backticks or as `name()`, must occur in the code (not only in comments) of
 *   harness/, scripts/, test/, compose/ or contenders/, unless it is in OTHER_NAMES.
 * - At most MAX_FILE_LINES lines per file under `harness/`, unless the file is in LONG_FILES with
 *   its reason. An entry whose file is no longer over the limit (or gone) is printed as stale but
 *   does not fail the check.
 *
 * Prints each finding as `file:line  what`; exit 0 when there is none, 1 when there is any.
 *
 * Run: `node scripts/checks/check-comments.ts [root]` (part of `just check`; `root` defaults to the
 * repository, the tests pass a temporary one).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The most lines a file under `harness/` may have without an entry in LONG_FILES. */
export const MAX_FILE_LINES = 500;

/** Files under `harness/` allowed over MAX_FILE_LINES (repository-relative path → why, and what would split it). */
export const LONG_FILES: Readonly<Record<string, string>> = {
  'harness/report/exporters/html/page.js': 'the HTML report script, shipped as one file inlined into the page',
  'harness/report/exporters/html/page.css': 'the HTML report stylesheet, shipped as one file inlined into the page',
};

/** One finding: repository-relative file, 1-based line (0 for the whole file), and what is wrong. */
export interface CommentFinding {
  file: string;
  line: number;
  what: string;
}

const ISSUE_REF = /\b[Ii]ssues? #?[0-9]+/;
const RUN_ID = /[0-9]{4}-[0-9]{2}-[0-9]{2}T([0-9]{2}-[0-9]{2}-[0-9]{2})Z-[0-9a-f]{4}/g;

/** Every file under `dir` (recursive, absolute paths, sorted), skipping `node_modules`. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** Line count as `wc -l` gives it, plus a last line without its newline. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The tracker references and run ids in one file's text (see the module docstring for the rules). */
export function commentFindings(file: string, text: string): CommentFinding[] {
  const out: CommentFinding[] = [];
  text.split('\n').forEach((line, i) => {
    const issue = ISSUE_REF.exec(line);
    if (issue) {
      out.push({
        file,
        line: i + 1,
        what: `tracker reference '${issue[0]}': say what the code does, link docs/decisions/`,
      });
    }
    for (const m of line.matchAll(RUN_ID)) {
      if (m[1] === '00-00-00') continue;
      out.push({ file, line: i + 1, what: `run id '${m[0]}': the run and its figures belong in docs/measurements.md` });
    }
  });
  return out;
}

/** A file path with a source or document extension, and the backticked name after it, if any. */
const FILE_REF = /(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.(?:ts|cjs|md))(?![\w-])(?:\s+`([A-Za-z_$][\w$]*)`)?/g;
/** A GitHub `owner/name ` right before a path: another project's file. */
const OTHER_REPO = /[\w-]+\/[\w.-]+\s+$/;

/** A camelCase name in backticks, or a name called with `()`, in a comment. */
const NAME_REF = /`([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`|(?<![\w.$])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\(\)/g;

/** Names of other projects' code that comments cite (the name → whose it is). */
export const OTHER_NAMES: Readonly<Record<string, string>> = {
  importFromChromeCPUProfile: "speedscope's Chrome profile importer (analysis/cpu-profile.ts cites its self-time rule)",
};

/** The comment part of a line of TypeScript (a `//` comment, or a line of a block comment), or null. */
function commentOf(line: string): string | null {
  const t = line.trim();
  if (t.startsWith('//') || t.startsWith('*') || t.startsWith('/*')) return t;
  const at = line.indexOf(' // ');
  return at >= 0 ? line.slice(at) : null;
}

/**
 * The comments of one file that name a file no repository path ends with, a backticked name
 * its file does not contain, or a function or variable that `known` (the code's names) lacks.
 * `resolve(ref)`: the texts of the repository files whose path ends with `ref` (empty when none).
 */
export function referenceFindings(
  file: string,
  text: string,
  resolve: (ref: string) => string[],
  known: (name: string) => boolean = () => true,
): CommentFinding[] {
  const out: CommentFinding[] = [];
  text.split('\n').forEach((line, i) => {
    const c = commentOf(line);
    if (!c) return;
    const afterFile = new Set<string>();
    for (const m of c.matchAll(FILE_REF)) {
      const [, ref = '', name] = m;
      if (name) afterFile.add(name);
      if (OTHER_REPO.test(c.slice(0, m.index))) continue;
      const texts = resolve(ref);
      if (!texts.length) out.push({ file, line: i + 1, what: `names '${ref}', which no file's path ends with` });
      else if (name && !texts.some((t) => new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(t)))
        out.push({ file, line: i + 1, what: `names \`${name}\` in '${ref}', which does not contain it` });
    }
    for (const m of c.matchAll(NAME_REF)) {
      const name = m[1] ?? m[2] ?? '';
      if (!known(name) && !(name in OTHER_NAMES) && !afterFile.has(name))
        out.push({ file, line: i + 1, what: `names \`${name}\`, which no code of the repository has` });
    }
  });
  return out;
}

/** `resolve` of referenceFindings over the repository's files under `root` (node_modules and .git left out). */
function resolverOf(root: string): (ref: string) => string[] {
  const paths = filesUnder(root).map((p) => relative(root, p).split('\\').join('/'));
  return (ref) =>
    paths.filter((p) => p === ref || p.endsWith(`/${ref}`)).map((p) => readFileSync(join(root, p), 'utf8'));
}

/** The names (identifiers) in the code lines, not the comments, of the repository's sources under `root`. */
function codeNames(root: string): Set<string> {
  const out = new Set<string>();
  for (const dir of ['harness', 'scripts', 'test', 'compose', 'contenders']) {
    if (!existsSync(join(root, dir))) continue;
    for (const path of filesUnder(join(root, dir)).filter((p) => /\.(ts|cjs|mjs|js)$/.test(p)))
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        const code = commentOf(line) === null ? line : line.slice(0, line.indexOf(' // ') + 1);
        if (/^\s*(\/\/|\*|\/\*)/.test(code)) continue;
        for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) out.add(m[0]);
      }
  }
  return out;
}

/** Findings of every file under `root/harness`, with the line-count rule; `stale`: LONG_FILES entries no longer needed. */
export function checkHarness(root = ROOT): { findings: CommentFinding[]; stale: string[]; files: number } {
  const findings: CommentFinding[] = [];
  const seen = new Set<string>();
  const paths = filesUnder(join(root, 'harness'));
  const resolve = resolverOf(root);
  const names = codeNames(root);
  for (const path of paths) {
    const file = relative(root, path).split('\\').join('/');
    const text = readFileSync(path, 'utf8');
    findings.push(...commentFindings(file, text));
    if (file.endsWith('.ts')) findings.push(...referenceFindings(file, text, resolve, (n) => names.has(n)));
    const lines = lineCount(text);
    if (lines <= MAX_FILE_LINES) continue;
    if (file in LONG_FILES) seen.add(file);
    else {
      findings.push({
        file,
        line: 0,
        what: `${lines} lines, over ${MAX_FILE_LINES}: split it by what its parts do, or add it to LONG_FILES in scripts/checks/check-comments.ts with the reason`,
      });
    }
  }
  const stale = Object.keys(LONG_FILES).filter((f) => !seen.has(f));
  return { findings, stale, files: paths.length };
}

function main(root = ROOT): number {
  const { findings, stale, files } = checkHarness(root);
  for (const f of stale) console.log(`note: ${f} is no longer over ${MAX_FILE_LINES} lines; remove it from LONG_FILES`);
  if (findings.length === 0) {
    console.log(
      `ok: no tracker references or run ids in harness/, no comment naming a missing file, and no file over ${MAX_FILE_LINES} lines outside LONG_FILES (${files} files)`,
    );
    return 0;
  }
  for (const f of findings) console.log(`${`${f.file}:${f.line}`.padEnd(48)} ${f.what}`);
  console.log(`${findings.length} finding(s) in harness/`);
  return 1;
}

if (import.meta.main) process.exitCode = main(process.argv[2] ?? ROOT);
