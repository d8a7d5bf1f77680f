// "A new contender is one folder": in a temporary copy of the repository (its tracked and
// not-ignored files, node_modules symlinked), `node harness/cli.ts new my-stack`, then
// `verify my-stack`, then test/unit/compose.test.ts and `node compose/gen-compose.ts --check` all pass,
// and the only files that changed are the new folder and the two files the compose generator
// writes (compose/docker-compose.yml, compose/README.md). No `npm install`: the template has no
// dependencies (the CLI tells the user to run it for package-lock.json before committing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyRepository, runNode as run } from '../repo-copy.ts';

test('`new my-stack` in a copy of the repository: verify and the compose checks pass with nothing else edited', async () => {
  const repo = copyRepository('new-contender', ['harness/cli.ts', 'contenders/_template/contender.json']);
  const copy = repo.dir;

  const made = await run(copy, ['harness/cli.ts', 'new', 'my-stack']);
  assert.equal(made.code, 0, made.out);
  assert.match(made.out, /compose: service my-stack on 127\.0\.0\.1:18\d{3}/);
  assert.match(made.out, /run `npm install` at the repository root.*package-lock\.json/);

  const verified = await run(copy, ['harness/cli.ts', 'verify', '--wait', 'my-stack']);
  assert.equal(verified.code, 0, verified.out);
  assert.equal((verified.out.match(/^\s+pass\s/gm) ?? []).length, 6, verified.out);

  const check = await run(copy, ['compose/gen-compose.ts', '--check']);
  assert.equal(check.code, 0, check.out);
  const composeTest = await run(copy, ['--test', '--test-concurrency=1', 'test/unit/compose.test.ts']);
  assert.equal(composeTest.code, 0, composeTest.out.split('\n').slice(-60).join('\n'));
  assert.match(composeTest.out, /# fail 0|ℹ fail 0/);

  const changed = repo.changedFiles();
  assert.deepEqual(changed, [
    'compose/README.md',
    'compose/docker-compose.yml',
    'contenders/my-stack/README.md',
    'contenders/my-stack/contender.json',
    'contenders/my-stack/package.json',
    'contenders/my-stack/server.js',
  ]);
  const compose = fs.readFileSync(path.join(copy, 'compose', 'docker-compose.yml'), 'utf8');
  assert.match(compose, /^ {2}my-stack:\n {4}<<: \*contender\n {4}build: \{[^\n]*CONTENDER: my-stack \}/m);
});
