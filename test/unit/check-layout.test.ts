// scripts/checks/check-layout.ts: duplicate base names under harness/ are found and fail the check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { duplicateBaseNames } from '../../scripts/checks/check-layout.ts';
import { ROOT } from '../helpers.ts';

test('duplicateBaseNames groups paths by base name and keeps only the shared ones', () => {
  const got = duplicateBaseNames(['harness/a/types.ts', 'harness/b/types.ts', 'harness/c/run.ts', 'harness/x.ts']);
  assert.deepEqual([...got], [['types.ts', ['harness/a/types.ts', 'harness/b/types.ts']]]);
});

test('the script exits 0 on the real harness/ and 1 naming the files when two share a base name', () => {
  const script = path.join(ROOT, 'scripts', 'checks', 'check-layout.ts');
  const real = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(real.status, 0, real.stdout);
  assert.match(real.stdout, /^ok: no two files in harness\/ share a base name/);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
  try {
    for (const f of ['harness/a/types.ts', 'harness/b/types.ts', 'harness/c/run.ts']) {
      fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
      fs.writeFileSync(path.join(tmp, f), '');
    }
    const bad = spawnSync(process.execPath, [script, tmp], { encoding: 'utf8' });
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stdout, /^types\.ts: harness\/a\/types\.ts, harness\/b\/types\.ts$/m);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
