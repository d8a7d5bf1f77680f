// The sampler check's probe (lifecycle/sampler-probe.ts runs it under `node --cpu-prof`, pinned
// like a server): a loop of pure JavaScript work with one cheap system call per pass
// (process.cpuUsage: getrusage). It first times the call alone (CALLS back-to-back), then runs the
// loop for LOOP_MS and prints one JSON line: the loop's bounds on the profile's clock
// (process.hrtime, µs), its passes and the measured cost of one call, ns. The share of the loop's
// time in the call is passes × cost ÷ the loop's wall time; an unbiased sampler gives the call's
// native frame about that share of the loop's samples.
'use strict';
const LOOP_MS = Number(process.env.PROBE_LOOP_MS ?? 1000);
const CALLS = 20000;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** About 20 µs of integer work on this VM; large enough that V8 does not inline it into the loop. */
function work(x) {
  for (let k = 0; k < 512; k++) {
    const i = k & 31;
    x = (Math.imul(x, 31) + i) | 0;
    x = (Math.imul(x, 33) + i) | 0;
    x = (Math.imul(x, 35) + i) | 0;
    x = (Math.imul(x, 37) + i) | 0;
    x = (Math.imul(x, 39) + i) | 0;
    x = (Math.imul(x, 41) + i) | 0;
    x = (Math.imul(x, 43) + i) | 0;
    x = (Math.imul(x, 45) + i) | 0;
    x = (Math.imul(x, 47) + i) | 0;
    x = (Math.imul(x, 49) + i) | 0;
    x = (Math.imul(x, 51) + i) | 0;
    x = (Math.imul(x, 53) + i) | 0;
    x = (Math.imul(x, 55) + i) | 0;
    x = (Math.imul(x, 57) + i) | 0;
    x = (Math.imul(x, 59) + i) | 0;
    x = (Math.imul(x, 61) + i) | 0;
  }
  return x;
}

let x = 0;
for (let i = 0; i < 200; i++) x = work(x); // warm-up: optimized before the loop
const t = process.hrtime.bigint();
for (let i = 0; i < CALLS; i++) x ^= process.cpuUsage().user | 0;
const callNs = Number(process.hrtime.bigint() - t) / CALLS;
const fromUs = nowUs();
const end = process.hrtime.bigint() + BigInt(LOOP_MS) * 1_000_000n;
let passes = 0;
do {
  x = work(x);
  x ^= process.cpuUsage().user | 0;
  passes++;
} while (process.hrtime.bigint() < end);
const toUs = nowUs();
process.stdout.write(`${JSON.stringify({ fromUs, toUs, passes, callNs, x: x & 1 })}\n`);
