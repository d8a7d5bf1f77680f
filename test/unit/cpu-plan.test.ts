/**
 * The CPU plan with fake core lists (issue 12.5): one core for the server, every other core for
 * the load driver and the services, and the driver's threads = its cores; unpinned with one core,
 * without taskset or with BENCH_NO_PIN=1. The real plan of this machine is checked too.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { allowedCores, cpuList, makeCpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import { coresOf } from '../../harness/drivers/checks.ts';

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
