// The two test tiers are folders: `just test-unit` runs test/unit/**/*.test.ts, `just test` every
// test file (test/**/*.test.ts). Every test file is in test/unit/ or test/integration/, so a new
// file joins a tier by where it is written; a unit file imports none of the modules that start
// servers or PostgreSQL, drive a browser or copy the repository; the recipes run the folders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers.ts';

const TEST = path.join(ROOT, 'test');

/** Every `*.test.ts` under `dir` (recursive), repository-relative, fixtures left out. */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return p === path.join(TEST, 'fixtures') ? [] : testFiles(p);
      return e.name.endsWith('.test.ts') ? [path.relative(ROOT, p).split(path.sep).join('/')] : [];
    })
    .sort();
}

/** Imports a unit test must not make: server and process starts, PostgreSQL, a browser, copies of the repository. */
const INTEGRATION_ONLY = [
  /harness\/lifecycle\/server\.ts/,
  /harness\/lifecycle\/processes\.ts/,
  /harness\/services\/postgres\.ts/,
  /playwright/,
  /repo-copy\.ts/,
];

test('every test file is in test/unit/ or test/integration/, each tier has files', () => {
  const all = testFiles(TEST);
  const unit = all.filter((f) => f.startsWith('test/unit/'));
  const integration = all.filter((f) => f.startsWith('test/integration/'));
  assert.ok(unit.length >= 10 && integration.length >= 10, `${unit.length} unit, ${integration.length} integration`);
  assert.deepEqual(
    all.filter((f) => !unit.includes(f) && !integration.includes(f)),
    [],
    'in no tier: move it into test/unit/ or test/integration/',
  );
});

test('a unit test imports no server start, PostgreSQL, browser or repository copy, and nothing of the integration tier', () => {
  const imports = /(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g;
  const bad: string[] = [];
  for (const f of testFiles(path.join(TEST, 'unit'))) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    for (const [, spec = ''] of text.matchAll(imports))
      if (INTEGRATION_ONLY.some((re) => re.test(spec)) || spec.includes('integration/')) bad.push(`${f}: ${spec}`);
  }
  assert.deepEqual(bad, [], 'unit tests importing integration-only modules: move the file to test/integration/');
});

test('`just test-unit` runs the unit folder and `just test` every test file', () => {
  const justfile = fs.readFileSync(path.join(ROOT, 'justfile'), 'utf8');
  assert.match(justfile, /^test-unit \*args:\n {4}node .*--test .*'test\/unit\/\*\*\/\*\.test\.ts'/m);
  assert.match(justfile, /^test \*args: check\n[\s\S]*?--test .*test\/\*\*\/\*\.test\.ts/m);
  assert.doesNotMatch(justfile, /^(unit|integration)_tests :=/m, 'no hand-kept list of test files');
});
