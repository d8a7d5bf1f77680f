/**
 * The CPU plan with fake core lists (issue 12.5): one core for the server, every other core for
 * the load driver and the services, and the driver's threads = its cores; unpinned with one core,
 * without taskset or with BENCH_NO_PIN=1. The separate-core duet plan (issue 22) on fake core
 * lists with and without SMT siblings. The real plan of this machine is checked too.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  allowedCores,
  cpuList,
  cpuSiblings,
  makeCpuPlan,
  makeDuetPlan,
  parseCpuList,
} from '../harness/lifecycle/cpu-plan.ts';
import { coresOf } from '../harness/drivers/checks.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

test('2 cores: server on CPU 1, client and services on CPU 0 with 1 thread', () => {
  const p = makeCpuPlan([0, 1], true);
  assert.deepEqual(
    { pinned: p.pinned, server: p.server, client: p.client, services: p.services, threads: p.clientThreads },
    { pinned: true, server: '1', client: '0', services: '0', threads: 1 },
  );
  assert.equal(p.note, 'server on CPU 1 (one core); load driver (1 thread) and services on CPU 0');
});

test('4 and 8 cores: the server keeps one core, the client gets all the others and uses them', () => {
  const four = makeCpuPlan(range(4), true);
  assert.deepEqual([four.server, four.client, four.clientThreads], ['3', '0-2', 3]);
  const eight = makeCpuPlan(range(8), true);
  assert.deepEqual([eight.server, eight.client, eight.services, eight.clientThreads], ['7', '0-6', '0-6', 7]);
  assert.match(eight.note, /server on CPU 7 \(one core\); load driver \(7 threads\) and services on CPU 0-6/);
  assert.equal(coresOf(eight.client), 7, 'the drivers read the same count back from the list');
  // Allowed cores need not start at 0 or be contiguous (a cgroup cpuset).
  const odd = makeCpuPlan([2, 3, 5, 9], true);
  assert.deepEqual([odd.server, odd.client, odd.clientThreads], ['9', '2,3,5', 3]);
  assert.equal(coresOf(odd.client), 3);
});

test('1 core, no taskset or BENCH_NO_PIN=1: unpinned, and the plan says why', () => {
  const one = makeCpuPlan([0], true);
  assert.deepEqual([one.pinned, one.server, one.client, one.clientThreads], [false, null, null, 1]);
  assert.match(one.note, /only 1 core available/);
  const noTaskset = makeCpuPlan(range(4), false);
  assert.equal(noTaskset.pinned, false);
  assert.equal(noTaskset.clientThreads, 3, 'unpinned: one thread per core but one');
  assert.match(noTaskset.note, /taskset not found/);
  process.env.BENCH_NO_PIN = '1';
  try {
    assert.match(makeCpuPlan(range(8), true).note, /BENCH_NO_PIN=1/);
  } finally {
    delete process.env.BENCH_NO_PIN;
  }
});

test('CPU lists: ranges for runs of three or more', () => {
  assert.equal(cpuList([0, 1, 2, 3, 6, 7, 9]), '0-3,6,7,9');
  assert.equal(cpuList([0]), '0');
  assert.equal(coresOf('0-3,6,7,9'), 7);
});

test("this machine's plan follows the same rule", () => {
  const cores = allowedCores();
  const p = makeCpuPlan();
  if (p.pinned) {
    assert.equal(p.server, String(cores[cores.length - 1]));
    assert.equal(p.clientThreads, cores.length - 1);
  } else assert.ok(p.clientThreads >= 1);
});

const solo = (cores: number[]) => cores.map((c) => [c]);

test('duet on separate cores: below 4 physical cores or without taskset no lanes, and the note says why', () => {
  assert.equal(makeDuetPlan(solo([0, 1]), true).lanes, null);
  assert.match(makeDuetPlan(solo([0, 1]), true).note, /2 physical cores, a duet on separate cores needs 4/);
  // 2 physical cores with 2 hyperthreads each are still 2 cores.
  assert.equal(
    makeDuetPlan(
      [
        [0, 2],
        [1, 3],
      ],
      true,
    ).lanes,
    null,
  );
  assert.match(makeDuetPlan(solo(range(8)), false).note, /taskset not found/);
});

test('duet on separate cores: 4, 5, 8 and 9 cores, each lane a server core and its own client cores, services apart from 5 on', () => {
  const four = makeDuetPlan(solo(range(4)), true);
  assert.deepEqual(four.lanes, [
    { server: '3', client: '2', clientThreads: 1 },
    { server: '1', client: '0', clientThreads: 1 },
  ]);
  assert.equal(four.services, '0,2', 'with 4 cores the services share the clients');
  const five = makeDuetPlan(solo(range(5)), true);
  assert.deepEqual(five.lanes, [
    { server: '4', client: '3', clientThreads: 1 },
    { server: '2', client: '1', clientThreads: 1 },
  ]);
  assert.equal(five.services, '0');
  const eight = makeDuetPlan(solo(range(8)), true);
  // 1 for the services, 7 left: one more to the services, 3 per lane.
  assert.deepEqual(eight.lanes, [
    { server: '7', client: '5,6', clientThreads: 2 },
    { server: '4', client: '2,3', clientThreads: 2 },
  ]);
  assert.equal(eight.services, '0,1');
  const nine = makeDuetPlan(solo(range(9)), true);
  assert.deepEqual(
    nine.lanes?.map((l) => [l.server, l.client]),
    [
      ['8', '5-7'],
      ['4', '1-3'],
    ],
  );
  assert.equal(nine.services, '0');
  // No CPU is in two roles, and every allowed CPU has one role.
  for (const p of [four, five, eight, nine]) {
    const lanes = p.lanes ?? assert.fail('lanes');
    const servers = lanes.map((l) => Number(l.server));
    const clients = lanes.flatMap((l) => parseCpuList(l.client));
    assert.equal(new Set([...servers, ...clients]).size, servers.length + clients.length, p.note);
    assert.ok(servers.every((x) => !clients.includes(x)));
  }
});

test('duet on separate cores with SMT siblings: a server core’s sibling stays idle, clients get whole cores', () => {
  // 4 physical cores, 8 logical CPUs: siblings (0,4) (1,5) (2,6) (3,7), as Linux numbers them.
  const p = makeDuetPlan(
    [
      [0, 4],
      [1, 5],
      [2, 6],
      [3, 7],
    ],
    true,
  );
  assert.deepEqual(p.lanes, [
    { server: '3', client: '2,6', clientThreads: 2 },
    { server: '1', client: '0,4', clientThreads: 2 },
  ]);
  assert.deepEqual(p.idle, [5, 7]);
  assert.match(
    p.note,
    /A server CPU 3, client CPU 2,6; B server CPU 1, client CPU 0,4; services CPU 0,2,4,6 \(shared with the clients\); idle SMT siblings 5,7/,
  );
  // A cgroup may allow only some of a core's CPUs: siblings outside the allowed set are dropped.
  assert.deepEqual(cpuSiblings([0, 1]).flat().sort(), [0, 1]);
});
