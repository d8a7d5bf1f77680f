// Other work on the machine during a window (harness/lifecycle/foreign-cpu.ts) and the reference's
// quiet check (harness/analysis/reference-stats.ts quietCheck): real processes that burn CPU inside
// and outside a process tree.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { FOREIGN_CPU_LIMIT, quietOf } from '../harness/analysis/quiet.ts';
import { quietCheck } from '../harness/analysis/reference-stats.ts';
import { foreignCpuS, foreignSnapshot } from '../harness/lifecycle/foreign-cpu.ts';

/** A shell that runs a 0.6 s CPU burner as its own child and waits for it. */
const BURN = `${process.execPath} -e "const t=Date.now();while(Date.now()-t<600);"`;

test('CPU burnt outside the tree counts as foreign; inside the tree it does not', async () => {
  // The "harness": a shell whose child burns; measured from its own pid, that burn is its own.
  // Read while the shell still lives: once it exits, its parent (this test) reaps its time.
  const own = spawn('sh', ['-c', `${BURN}; sleep 3`], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 50));
  const a0 = foreignSnapshot(own.pid);
  await new Promise((r) => setTimeout(r, 1500));
  const inside = foreignCpuS(a0, foreignSnapshot(own.pid));
  own.kill();
  // A burner that is no descendant of the measured root (here: of a sleeping shell) is foreign.
  const root = spawn('sh', ['-c', 'sleep 5'], { stdio: 'ignore' });
  const b0 = foreignSnapshot(root.pid);
  const other = spawn('sh', ['-c', BURN], { stdio: 'ignore' });
  await once(other, 'exit');
  const outside = foreignCpuS(b0, foreignSnapshot(root.pid));
  root.kill();
  assert.ok(inside !== null && outside !== null, 'Linux /proc is read');
  assert.ok((outside ?? 0) >= 0.4, `the burner outside the tree counts: ${outside} s`);
  assert.ok((inside ?? 1) < 0.3, `the burner inside the tree does not: ${inside} s`);
  assert.equal(foreignCpuS(null, b0), null);
});

test('the quiet check counts windows whose foreign CPU is above the limit of a core', () => {
  const w = (foreignCpuS: number | null | undefined) => ({
    rps: 1,
    efficiency: 1,
    requests: 10,
    durationS: 10,
    serverCpuS: 10,
    errors: 0,
    foreignCpuS,
  });
  const q = quietCheck([{ windows: [w(0.1), w(10 * FOREIGN_CPU_LIMIT + 0.5), w(null)] }, { windows: [w(undefined)] }]);
  assert.deepEqual(q, { limit: FOREIGN_CPU_LIMIT, windows: 4, read: 2, disturbed: 1, maxShare: 0.1 });
  assert.equal(quietCheck([{ windows: [w(0.2)] }]).disturbed, 0);
  assert.deepEqual(quietOf([0.01, 0.2, null]), {
    limit: FOREIGN_CPU_LIMIT,
    windows: 3,
    read: 2,
    disturbed: 1,
    maxShare: 0.2,
  });
});
