/**
 * Function-length check: lists every function, method, accessor, constructor and arrow function in
 * `harness/**\/*.ts` whose body spans more than MAX_LINES lines (default 100; first argument overrides),
 * as `file:line  name  length`, longest first. Exit 0 when none does, 1 when any does, 2 on bad input.
 *
 * Length = the body's line count: from the line of its opening `{` to the line of its closing `}`,
 * both included (an expression-bodied arrow counts the expression's lines). Nested functions are
 * measured on their own and also count inside their parent.
 *
 * Run: `node scripts/checks/check-function-length.ts [max-lines] [--top N]` (`--top N` prints the N longest
 * functions whatever their length and exits 0). Uses the TypeScript compiler API (devDependency).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One measured function: repository-relative file, 1-based line of its start, printable name, body lines. */
export interface FunctionLength {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Every `.ts` file under `dir` (recursive), sorted, skipping `node_modules`. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** A readable name for a function node: its declared name, the variable or property it is assigned to, or `<anonymous>`. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) {
    return node.name.text;
  }
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText().slice(0, 40)}>`;
  return '<anonymous>';
}

/** Body line count of every function-like node in one source text (see the module docstring for the rule). */
export function measureSource(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    const body = ts.isFunctionLike(node) && 'body' in node ? (node as ts.FunctionLikeDeclaration).body : undefined;
    if (body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      out.push({ file, line: start + 1, name: nameOf(fn), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every function in `harness/**\/*.ts`, longest first. */
export function measureHarness(root = ROOT): FunctionLength[] {
  const all: FunctionLength[] = [];
  for (const path of tsFiles(join(root, 'harness'))) {
    all.push(...measureSource(relative(root, path), readFileSync(path, 'utf8')));
  }
  return all.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

function main(argv: string[]): number {
  const args = [...argv];
  const topAt = args.indexOf('--top');
  let top: number | null = null;
  if (topAt >= 0) {
    top = Number(args[topAt + 1]);
    args.splice(topAt, 2);
    if (!Number.isInteger(top) || top < 1) {
      console.error('error: --top takes a whole number ≥ 1, e.g. --top 5');
      return 2;
    }
  }
  const max = args[0] === undefined ? 100 : Number(args[0]);
  if (!Number.isInteger(max) || max < 1) {
    console.error(
      `error: max-lines must be a whole number ≥ 1, got '${args[0]}'; e.g. node scripts/checks/check-function-length.ts 100`,
    );
    return 2;
  }
  const all = measureHarness();
  const pad = (f: FunctionLength) => `${f.file}:${f.line}`.padEnd(48);
  if (top !== null) {
    for (const f of all.slice(0, top)) console.log(`${pad(f)} ${String(f.lines).padStart(4)}  ${f.name}`);
    return 0;
  }
  const over = all.filter((f) => f.lines > max);
  for (const f of over) console.log(`${pad(f)} ${String(f.lines).padStart(4)}  ${f.name}`);
  if (over.length === 0) {
    console.log(`ok: no function in harness/ is longer than ${max} lines (${all.length} functions)`);
    return 0;
  }
  console.log(`${over.length} function(s) in harness/ longer than ${max} lines (of ${all.length})`);
  return 1;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
