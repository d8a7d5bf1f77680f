// The two test tiers of the justfile: `just test-unit` runs the files of `unit_tests`, `just test`
// runs every file in test/. Every test file is in exactly one of `unit_tests` and
// `integration_tests`, so a new file has to be given a tier, and each named file exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.ts';

/** The files of a justfile variable written as `name := ( "a b " + "c" )`. */
function tierFiles(justfile: string, name: string): string[] {
  const m = new RegExp(`^${name} := \\(\\n([\\s\\S]*?)\\n\\)`, 'm').exec(justfile);
  assert.ok(m?.[1], `justfile has no variable ${name} := ( … )`);
  return [...m[1].matchAll(/"([^"]*)"/g)].flatMap((s) => (s[1] ?? '').split(/\s+/).filter(Boolean));
}

test('every test file is in exactly one tier, and every file a tier names exists', () => {
  const justfile = fs.readFileSync(path.join(ROOT, 'justfile'), 'utf8');
  const unit = tierFiles(justfile, 'unit_tests');
  const integration = tierFiles(justfile, 'integration_tests');
  assert.ok(unit.length >= 10 && integration.length >= 10, `${unit.length} unit, ${integration.length} integration`);
  const onDisk = fs
    .readdirSync(path.join(ROOT, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`)
    .sort();
  const named = [...unit, ...integration];
  const twice = named.filter((f, i) => named.indexOf(f) !== i);
  assert.deepEqual(twice, [], 'in two tiers (or twice in one)');
  assert.deepEqual(
    onDisk.filter((f) => !named.includes(f)),
    [],
    'in no tier: add it to unit_tests or integration_tests in the justfile',
  );
  assert.deepEqual(
    named.filter((f) => !onDisk.includes(f)),
    [],
    'named in a tier but not in test/',
  );
});

test('`just test-unit` runs the unit tier and `just test` every file', () => {
  const justfile = fs.readFileSync(path.join(ROOT, 'justfile'), 'utf8');
  assert.match(justfile, /^test-unit \*args:\n {4}node .*--test .*\{\{unit_tests\}\}/m);
  assert.match(justfile, /^test \*args: check\n[\s\S]*?--test .*test\/\*\*\/\*\.test\.ts/m);
});
