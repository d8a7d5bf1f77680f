// Other work on the machine during a window (harness/lifecycle/foreign-cpu.ts) and the reference's
// quiet check (harness/analysis/reference-stats.ts quietCheck): real processes that burn CPU inside
// and outside a process tree.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { FOREIGN_CPU_LIMIT, plausibleQuiet, quietOf } from '../../harness/analysis/quiet.ts';
import { quietCheck } from '../../harness/analysis/reference-stats.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { foreignCpuByPid, foreignCpuS, foreignSnapshot } from '../../harness/lifecycle/foreign-cpu.ts';
import { measurementNotes } from '../../harness/report/measurement-notes.ts';
import { makeCell, makeMeta } from '../fixtures.ts';

/** A shell that runs a 0.6 s CPU burner as its own child and waits for it. */
const BURN = `${process.execPath} -e "const t=Date.now();while(Date.now()-t<600);"`;

// Other processes may run on the machine while the tests do, so each case reads the processes it made.
test('CPU burnt outside the tree counts as foreign; inside the tree it does not', async () => {
  // The "harness": a shell whose child burns; measured from its own pid, that burn is its own.
  // Read while the shell still lives: once it exits, its parent (this test) reaps its time.
  const own = spawn('sh', ['-c', `${BURN}; sleep 3`], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 50));
  const a0 = foreignSnapshot(own.pid);
  await new Promise((r) => setTimeout(r, 1500));
  const a1 = foreignSnapshot(own.pid);
  const inside = foreignCpuByPid(a0, a1);
  own.kill();
  assert.ok(inside && !inside.has(own.pid ?? 0), 'the tree itself is never foreign');
  const ownKids = [...(a1?.procs.keys() ?? [])].filter((p) => a1?.procs.get(p)?.foreign === false);
  assert.ok(ownKids.length >= 1 && ownKids.every((p) => !inside.has(p)));
  assert.ok(
    (inside.get(process.pid) ?? 0) < 0.3,
    `this test, outside the tree, burnt nothing: ${inside.get(process.pid)} s`,
  );
  // A burner that is no descendant of the measured root (here: of a sleeping shell) is foreign:
  // its shell is this test's child, so once reaped its time is this process's children's time.
  const root = spawn('sh', ['-c', 'sleep 5'], { stdio: 'ignore' });
  const b0 = foreignSnapshot(root.pid);
  const other = spawn('sh', ['-c', BURN], { stdio: 'ignore' });
  await once(other, 'exit');
  const outside = foreignCpuByPid(b0, foreignSnapshot(root.pid));
  root.kill();
  assert.ok(
    (outside?.get(process.pid) ?? 0) >= 0.4,
    `the burner outside the tree counts: ${outside?.get(process.pid)} s`,
  );
  assert.ok((foreignCpuS(b0, foreignSnapshot(root.pid)) ?? 0) >= 0.4);
  assert.equal(foreignCpuS(null, b0), null);
});

test('a process that leaves the tree during a window (an orphan) counts only what it burnt in the window', async () => {
  const burnThenSleep = `${process.execPath} -e "const t=Date.now();while(Date.now()-t<600);setTimeout(()=>{},3000)"`;
  // The subshell exits at 1.2 s: its child, done burning, is reparented outside the tree.
  const root = spawn('sh', ['-c', `( ${burnThenSleep} & sleep 1.2 ); sleep 5`], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 1000));
  const before = foreignSnapshot(root.pid);
  await new Promise((r) => setTimeout(r, 700));
  const after = foreignSnapshot(root.pid);
  root.kill();
  const orphans = [...(after?.procs.entries() ?? [])].filter(
    ([pid, p]) => p.foreign && before?.procs.get(pid)?.foreign === false && before.procs.get(pid)?.start === p.start,
  );
  assert.ok(orphans.length >= 1, 'the burner left the tree');
  const by = foreignCpuByPid(before, after);
  for (const [pid] of orphans)
    assert.ok((by?.get(pid) ?? 0) < 0.3, `the orphan's earlier 0.6 s is not counted: ${by?.get(pid)} s`);
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

test('a table names the cells measured beside other work (measurement note "not-quiet")', () => {
  const quiet = { limit: FOREIGN_CPU_LIMIT, windows: 8, read: 8, disturbed: 0, maxShare: 0.01 };
  const rows = [
    makeCell({ label: 'node-http', scenario: 'json', trials: [10_000, 10_100, 9_900, 10_050, 9_950] }),
    { ...makeCell({ label: 'a', scenario: 'json', trials: [5_000, 5_100, 4_900, 5_050, 4_950] }), quiet },
    {
      ...makeCell({ label: 'b', scenario: 'json', trials: [7_000, 7_100, 6_900, 7_050, 6_950] }),
      quiet: { ...quiet, disturbed: 2, maxShare: 0.146 },
    },
  ];
  const [t] = buildTables([{ meta: makeMeta(), cells: rows }]);
  const note = t ? measurementNotes(t).find((n) => n.kind === 'not-quiet') : undefined;
  assert.deepEqual(note?.labels, ['b']);
  assert.match(note?.detail ?? '', /b 2 of 8 windows, up to 14\.6%/);
  // A share above the machine's cores is no reading: a cell whose only disturbed window was one is quiet.
  const impossible = { ...quiet, disturbed: 1, maxShare: 128.9 };
  assert.deepEqual(plausibleQuiet(impossible, 2), { ...impossible, read: 7, disturbed: 0, maxShare: null });
  assert.equal(plausibleQuiet(quiet, 2), quiet);
  const [t2] = buildTables([{ meta: makeMeta(), cells: [rows[0], { ...rows[1], quiet: impossible }] as typeof rows }]);
  assert.equal(t2 ? measurementNotes(t2).some((n) => n.kind === 'not-quiet') : true, false);
});
