// scripts/checks/check-function-length.ts: body line counts of functions, methods and arrows, and the
// script's exit code and output on the real harness/ (it lists every function over 100 lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { measureSource } from '../../scripts/checks/check-function-length.ts';
import { ROOT } from '../helpers.ts';

const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const x${i} = ${i};`).join('\n');

test('body length = lines from the opening { to the closing }, for every kind of function', () => {
  const src = [
    `export function big() {\n${body(101)}\n}`,
    `const arrow = () => {\n${body(100)}\n};`,
    'class K {\n  method() {\n    return 1;\n  }\n  constructor() {}\n}',
    'const expr = (a: number) =>\n  a +\n  1;',
    'declare function noBody(): void;',
  ].join('\n');
  const got = measureSource('x.ts', src).map((f) => `${f.name}:${f.lines}`);
  assert.deepEqual(got, ['big:101', 'arrow:100', 'method:3', 'constructor:1', 'expr:2']);
  assert.equal(measureSource('x.ts', src)[1]!.line, 102, 'the line where the function starts, 1-based');
});

test('the script exits 1 listing each function over the limit as file:line, and 2 on a bad limit', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'checks', 'check-function-length.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
    });
  const strict = run('5');
  assert.equal(strict.status, 1, strict.stderr);
  assert.match(strict.stdout, /^harness\/\S+\.ts:\d+ +\d+ {2}\S/m);
  assert.match(strict.stdout, /function\(s\) in harness\/ longer than 5 lines \(of \d+\)\n$/);
  const loose = run('100000');
  assert.equal(loose.status, 0, loose.stdout);
  assert.match(loose.stdout, /^ok: no function in harness\/ is longer than 100000 lines/);
  const bad = run('ten');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: max-lines must be a whole number ≥ 1, got 'ten'/);
});
