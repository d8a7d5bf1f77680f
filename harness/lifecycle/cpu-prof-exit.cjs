/**
 * Preload of a server profiled with `--cpu-prof` (lifecycle/cpu-prof.ts loads it with
 * `--require`). Node writes the `--cpu-prof` file only when the process exits through
 * `process.exit()` or the end of its event loop; a SIGTERM or SIGINT with no handler kills it
 * by the default signal action and NO profile is written (checked on Node 24.21). So this
 * preload turns SIGTERM and SIGINT into `process.exit(128 + signal number)`:
 * - when the app has no handler of its own for the signal: at once;
 * - when it has one (a graceful shutdown, or one that ignores the signal): after
 *   BENCH_CPU_PROF_GRACE_MS (default 1000 ms; an unref'd timer), unless the app's own
 *   shutdown has ended the process first (its process.exit or the end of its event loop
 *   writes the profile as well).
 * A process whose event loop is blocked cannot run any handler: it gets no profile, and the
 * harness's SIGKILL after its grace period ends it (findCpuProfile then says so).
 */
'use strict';

const graceMs = Number(process.env.BENCH_CPU_PROF_GRACE_MS ?? 1000);
const numbers = { SIGINT: 2, SIGTERM: 15 };

for (const sig of Object.keys(numbers)) {
  process.on(sig, () => {
    const code = 128 + numbers[sig];
    if (process.listenerCount(sig) <= 1) process.exit(code);
    setTimeout(() => process.exit(code), Number.isFinite(graceMs) && graceMs >= 0 ? graceMs : 1000).unref();
  });
}
