/**
 * One group (scenario × profile × driver × Node major): start every server of the group, verify
 * each (contract check, then the concurrency burst: contract/burst.ts), warm each once, then
 * `rounds` rounds, each in its own seeded shuffled order, one measured window per server and
 * round. Servers stay alive for the group, then stop. Each trial is written as it finishes;
 * each cell (its trials aggregated) at the end, also after an abort. A server that dies makes
 * its cell `crashed` and the others go on. In `verify` mode: start and contract check only.
 * After verification and after every window the server's listening sockets are read again
 * (window.ts `loopbackBreach`): one off loopback makes the cell `error` with the address.
 * Times in ms.
 */
import { type CapacityShape, interleaveOf, measuredSeconds, type Profile } from '../core/profiles.ts';
import { UserError } from '../core/errors.ts';
import type { CellResult } from '../store/results.ts';
import { aggregateTrials, describe } from './aggregate.ts';
import { openLoopFor, runCapacityRound } from './capacity-round.ts';
import { groupPlan, partsMs, restartWarmupS, roundsPerInstance, windowMs } from './group-plan.ts';
import { runInterleavedRound } from './interleave.ts';
import { baseResult, cellIdOf, lostServices } from './jobs.ts';
import { cellLabel, type CellSpec } from './plan.ts';
import { ESTIMATE } from './progress.ts';
import { runNativeCheck } from './native-check.ts';
import { restartOrder, roundOrders } from './rounds.ts';
import { liveServer, StartFailure, type Entry, type GroupContext, type OpenLoopChoice } from './scheduler-types.ts';
import type { GroupOps } from './scheduler-types.ts';
import { escapedOf, loopbackBreach, runWindow, verifyEntry } from './window.ts';

export type { GroupContext, ResultSink } from './scheduler-types.ts';
export { groupPlan, type PlannedPhases, partsMs, restartWarmupS, roundsPerInstance } from './group-plan.ts';

/** One Entry per cell of the group, with its cell id, label, base result and log file. */
function makeEntries(cells: CellSpec[], ctx: GroupContext, ext: boolean): Entry[] {
  return cells.map((cell) => {
    const id = cellIdOf(cell, ctx.driverName, ext);
    const logFile = ctx.sink.logFile(id);
    return {
      cell,
      id,
      label: `${cellLabel(cell.manifest.name, cell.variant)} · ${cell.scenario.name} · ${cell.profile.name} · ${ctx.driverName} · Node ${cell.node.major}`,
      base: baseResult(cell, {
        runId: ctx.runId,
        id,
        driver: ctx.driverName,
        cpuPlan: ctx.cpuPlan,
        externalUrl: ctx.externalUrl,
        logFile: ext ? null : ctx.sink.logRef(logFile),
      }),
      logFile,
      server: null,
      verification: null,
      ms: { start: 0, verify: 0, teardown: 0 },
      trials: [],
      final: null,
    };
  });
}

/** The GroupOps over `entries` (see GroupOps). */
function groupOps(entries: Entry[], ctx: GroupContext, ext: boolean): GroupOps {
  return {
    alive: () => entries.filter((e) => !e.final && e.server),
    overhead: (e) => (ext ? null : { ...e.ms, total: e.ms.start + e.ms.verify + e.ms.teardown }),
    finish: (e, patch) => {
      e.final = { ...e.base, ...patch, finishedAt: new Date().toISOString() };
    },
    stop: async (e) => {
      if (!e.server) return;
      const s = e.server;
      const last = e.starts?.at(-1);
      if (last && e.trials.length > last.trialsBefore) last.afterLoadRssBytes = s.rssBytes?.() ?? null;
      e.server = null;
      e.ms.teardown = await s.stop();
      ctx.lifecycle.afterStop(e.logFile);
    },
    tail: (e) => (ext ? '' : ctx.lifecycle.logTail(e.logFile)),
  };
}

/** A server that did not come up ready for load: its status, the reason and its log's tail. */
interface StartProblem {
  status: CellResult['status'];
  reason: string;
  logTail: string;
}

/**
 * Starts `e`'s server (`ctx.lifecycle.start`), notes the start, verifies it (window.ts
 * `verifyEntry`: the contract check and the burst) and judges it, the one start → verify → judge
 * of a group's first and restarted server processes. Returns 'aborted' on an abort (a server killed
 * by the interrupt neither failed to start nor crashed); a failed start (`start-failed`); a crash,
 * an off-loopback socket (`where` names the check) or a failed verdict, its server stopped; or null
 * when the server is ready for load. `timed`: the start's ms go to `e.ms.start` (0 for an external
 * target). Throws a UserError (a busy fixed port) or an unexpected start error.
 */
async function startChecked(
  e: Entry,
  ctx: GroupContext,
  ops: GroupOps,
  o: { where: string; timed: boolean; ext: boolean },
): Promise<StartProblem | 'aborted' | null> {
  const t0 = performance.now();
  try {
    e.server = await ctx.lifecycle.start(e.cell, e.logFile);
  } catch (err) {
    if (ctx.signal.aborted && !(err instanceof UserError)) return 'aborted';
    if (err instanceof UserError || !(err instanceof StartFailure)) throw err;
    return { status: 'start-failed', reason: err.message, logTail: err.logTail };
  }
  if (o.timed) e.ms.start = o.ext ? 0 : performance.now() - t0;
  noteStart(e);
  await verifyEntry(e, ctx);
  if (ctx.signal.aborted) return 'aborted';
  const died = e.server?.exitInfo();
  const wide = died ? null : loopbackBreach(e, o.where);
  const v = e.verification;
  const problem: Omit<StartProblem, 'logTail'> | null = died
    ? { status: 'crashed', reason: `server ${died} during verification (contract check or concurrency burst)` }
    : wide
      ? { status: 'error', reason: wide }
      : v?.level === 'fail'
        ? { status: 'verify-failed', reason: `verification failed: ${v.reasons.join('; ')}` }
        : null;
  if (!problem) return null;
  await ops.stop(e);
  return { ...problem, logTail: ops.tail(e) };
}

/**
 * Starts and verifies every server of the group in order (`startChecked`). A failed build or
 * precheck, a start failure, a crash or off-loopback socket during verification or a failed
 * verdict finishes that entry (its server stopped). Returns early on an abort. Throws a UserError
 * or an unexpected start error.
 */
async function startAndVerify(entries: Entry[], ctx: GroupContext, ops: GroupOps, ext: boolean): Promise<void> {
  for (const e of entries) {
    if (ctx.signal.aborted) return;
    const build = ctx.builds.get(e.cell.manifest.name);
    if (build && !build.ok) {
      ops.finish(e, {
        status: 'build-failed',
        logFile: null,
        failure: { reason: `build failed: ${e.cell.manifest.build}`, logTail: build.output },
      });
      continue;
    }
    const pre = ctx.precheck(e.cell);
    if (pre) {
      ops.finish(e, { status: pre.status, logFile: null, failure: { reason: pre.reason, logTail: '' } });
      continue;
    }
    const p = await startChecked(e, ctx, ops, { where: 'verification', timed: true, ext });
    if (p === 'aborted') return;
    if (p?.status === 'start-failed')
      ops.finish(e, { status: p.status, failure: { reason: p.reason, logTail: p.logTail } });
    else if (p)
      ops.finish(e, {
        status: p.status,
        verification: e.verification,
        overheadMs: ops.overhead(e),
        failure: { reason: p.reason, logTail: p.logTail },
      });
    ctx.progress.done('server', ESTIMATE.server);
  }
}

/**
 * Warms entry `e` with one unrecorded window of `seconds`; `where` names it in a failure ("the
 * warm-up"). Returns the failure (a crash, an off-loopback socket or a driver error) with its
 * status, or null — also on an abort (a server killed by the interrupt did not crash).
 */
async function warmOne(e: Entry, ctx: GroupContext, seconds: number, where: string) {
  const err = await runWindow(e, ctx, seconds, true);
  if (ctx.signal.aborted) return null;
  const died = e.server?.exitInfo();
  const wide = died ? null : loopbackBreach(e, where);
  const escaped = died || wide ? null : escapedOf(err);
  if (!died && !wide && !escaped && typeof err !== 'string') return null;
  const status: CellResult['status'] = died ? 'crashed' : escaped ? 'uncontained' : 'error';
  return {
    status,
    reason: died ? `server ${died} during ${where}` : (wide ?? escaped ?? `load driver failed in ${where}: ${err}`),
  };
}

/**
 * Warms each live server once with a `p.warmupS` window (not recorded). A crash, an off-loopback
 * socket or a driver failure finishes the entry as `crashed`/`error`. Returns early on an abort.
 */
async function runWarmup(ctx: GroupContext, ops: GroupOps, p: Profile): Promise<void> {
  for (const e of ops.alive()) {
    if (ctx.signal.aborted) return;
    const failed = await warmOne(e, ctx, p.warmupS, 'the warm-up');
    ctx.progress.done('warmup', p.warmupS * 1000 + ESTIMATE.windowOverhead);
    if (failed)
      ops.finish(e, {
        status: failed.status,
        verification: e.verification,
        overheadMs: ops.overhead(e),
        failure: { reason: failed.reason, logTail: ops.tail(e) },
      });
  }
}

/** The capacity shape of a capacity profile with its open-loop driver choice (both null otherwise). */
type CapacityPlan = { shape: CapacityShape; openLoop: OpenLoopChoice } | null;

/**
 * One measured window (or capacity round) of entry `e` in round `round` (1-based): runs it, checks
 * the server, its sockets and the services (database, upstream mock), writes the trial through
 * `ctx.sink` and stops the server when the trial is not ok. Returns false when an abort interrupted the window (no trial written).
 */
async function measureWindow(e: Entry, round: number, ctx: GroupContext, ops: GroupOps, p: Profile, cap: CapacityPlan) {
  ctx.progress.window(
    { cell: e.id, label: e.label, round, rounds: ctx.rounds, durationS: measuredSeconds(p) },
    windowMs(p),
  );
  // A capacity round: the closed-loop peak window, then the open-loop search (scheduler/capacity-round.ts).
  const c = cap?.openLoop.driver ? await runCapacityRound(e, ctx, round, cap.shape, cap.openLoop.driver) : null;
  const out = c ? c.out : await runWindow(e, ctx, measuredSeconds(p), false);
  if (ctx.signal.aborted && !c?.search?.steps.length) {
    ctx.progress.close();
    return false; // an interrupted window is not a trial
  }
  // A server killed by the interrupt (Ctrl-C reaches its process group too) did not crash.
  const died = ctx.signal.aborted ? null : liveServer(e).exitInfo();
  const wide = died ? null : loopbackBreach(e, `round ${round}`);
  const escaped = died || wide ? null : escapedOf(out);
  const lost = await lostServices(e.cell, ctx);
  const trial: CellResult =
    typeof out === 'string' || died || wide || escaped || c?.error
      ? {
          ...e.base,
          ...lost,
          status: died ? 'crashed' : escaped ? 'uncontained' : 'error',
          round,
          verification: e.verification,
          ...(c?.search ? { capacitySearch: c.search } : {}),
          failure: {
            reason: died
              ? `server ${died} during the load run`
              : (wide ?? escaped ?? `load driver failed: ${typeof out === 'string' ? out : c?.error}`),
            logTail: ops.tail(e),
          },
          finishedAt: new Date().toISOString(),
        }
      : {
          ...e.base,
          ...lost,
          ...out,
          ...(c?.search ? { capacitySearch: c.search } : {}),
          status: 'ok',
          round,
          verification: e.verification,
          finishedAt: new Date().toISOString(),
        };
  e.trials.push(trial);
  ctx.sink.writeTrial(trial, e.trials.length);
  ctx.progress.windowEnd(trial, `  ${describe(trial)}`);
  if (trial.status !== 'ok') await ops.stop(e);
  ctx.progress.done('window', windowMs(p));
  return true;
}

/**
 * The rounds: every live server once per round, in the round's seeded shuffled order
 * (rounds.ts). The windows of finished or stopped entries are skipped in the progress. Stops on an abort.
 */
async function runRounds(entries: Entry[], ctx: GroupContext, ops: GroupOps, p: Profile, cap: CapacityPlan) {
  const orders = roundOrders(entries, ctx.rounds, ctx.seed, ctx.groupIndex);
  for (const [r, order] of orders.entries()) {
    for (const e of order) {
      if (ctx.signal.aborted) break;
      if (e.final || !e.server) {
        ctx.progress.skip('window', windowMs(p));
        continue;
      }
      if (!(await measureWindow(e, r + 1, ctx, ops, p, cap))) break;
    }
    if (ctx.signal.aborted) break;
  }
}

/**
 * The profile's interleaved rounds (scheduler/interleave.ts), after the solo rounds, when the
 * group has ≥ 2 live servers whose CPU time can be read (not an external target) and the driver
 * can interleave (`LoadDriver.interleaves`). Stops on an abort.
 */
async function runInterleaved(entries: Entry[], ctx: GroupContext, ops: GroupOps, p: Profile): Promise<void> {
  const il = interleaveOf(p);
  // A driver that cannot interleave (k6; `just why`'s profiled driver, scheduler/profiled.ts: one
  // window per server process) gets the interleaved rounds as solo rounds instead (profiles.ts `defaultRounds`).
  if (!il || entries.length < 2 || !ctx.driver.interleaves) return;
  if (ops.alive().some((e) => liveServer(e).cpuUs() === null)) {
    ctx.progress.note("  interleaved rounds skipped: a server's CPU time cannot be read (external target)");
    return;
  }
  const per = roundsPerInstance(il);
  // With `restartFirst` the first process serves the solo windows only: the interleaved ones are 2, 3 …
  const first = il.restartFirst ? 2 : 1;
  for (let r = 1; r <= il.rounds; r++) {
    if (ctx.signal.aborted) return;
    const instance = Math.floor((r - 1) / per) + first;
    if ((r > 1 || il.restartFirst) && (r - 1) % per === 0 && ops.alive().length >= 2) {
      const order = restartOrder(ops.alive(), ctx, instance);
      await restartAll(ctx, ops, instance, r, order);
      if (ctx.signal.aborted) return;
      await warmRestarted(ctx, ops, restartWarmupS(p, ctx.rounds), instance, r, order);
      if (ctx.signal.aborted) return;
    }
    if (!(await runInterleavedRound(entries, ctx, r, il, ops.stop, ops.tail, { instance }))) return;
  }
}

/**
 * Warms each restarted server (server process `instance`, before interleaved round `round`) alone,
 * for `seconds` of solo load: the warm-up the first process had. An interleaved warm-up of the same
 * length left the first round of processes 2 and 3 9.0% and 6.7% below their second (± 1.7–1.8%)
 * in one bake-off (docs/noise.md, "Process instances"), against 2.4% (± 2.0%) for process 1 after its solo load
 * (scripts/studies/warmup-audit.ts). A crash, an off-loopback socket or a driver failure writes an error
 * trial (numbered `round`) and stops that server. Returns early on an abort.
 */
async function warmRestarted(
  ctx: GroupContext,
  ops: GroupOps,
  seconds: number,
  instance: number,
  round: number,
  order: Entry[],
) {
  if (!(seconds > 0)) return;
  ctx.progress.note(`  warming ${ops.alive().length} restarted servers alone, ${seconds} s each`);
  const alive = new Set(ops.alive());
  for (const e of order.filter((x) => alive.has(x))) {
    if (ctx.signal.aborted) return;
    const failed = await warmOne(e, ctx, seconds, `the warm-up of server process ${instance}`);
    ctx.progress.done('rewarm', seconds * 1000 + ESTIMATE.windowOverhead);
    if (!failed) continue;
    const trial: CellResult = {
      ...e.base,
      status: failed.status,
      round,
      verification: e.verification,
      failure: { reason: failed.reason, logTail: ops.tail(e) },
      finishedAt: new Date().toISOString(),
    };
    e.trials.push(trial);
    ctx.sink.writeTrial(trial, e.trials.length);
    await ops.stop(e);
  }
}

/**
 * Restarts every live server of the group (`live`, in `restartOrder`) as server process `instance` before interleaved round
 * `round` (profiles.ts `InterleaveShape.instances`): stop, start, the contract check and the
 * burst again (window.ts `verifyEntry`); the first process's start-up time and verification stay
 * the cell's unless the new one fails. A failed start, a crash or a failed check writes an error
 * trial (numbered `round`) and leaves that cell out of the later rounds. Returns early on an
 * abort. Throws a UserError (a busy fixed port) or an unexpected start error.
 */
async function restartAll(
  ctx: GroupContext,
  ops: GroupOps,
  instance: number,
  round: number,
  live: Entry[],
): Promise<void> {
  ctx.progress.note(`  restarting ${live.length} servers as server process ${instance} of each cell`);
  for (const e of live) {
    if (ctx.signal.aborted) return;
    await ops.stop(e);
    const first = { startupMs: e.base.startupMs, verification: e.verification };
    const where = `the contract check of server process ${instance}`;
    const p = await startChecked(e, ctx, ops, { where, timed: false, ext: false });
    if (p === 'aborted') return;
    e.base.startupMs = first.startupMs;
    if (!p) e.verification = first.verification;
    else {
      const trial: CellResult = {
        ...e.base,
        status: 'error',
        round,
        verification: e.verification,
        failure: {
          reason: `restart as server process ${instance} before interleaved round ${round}: ${p.reason}`,
          logTail: p.logTail,
        },
        finishedAt: new Date().toISOString(),
      };
      e.trials.push(trial);
      ctx.sink.writeTrial(trial, e.trials.length);
    }
    ctx.progress.done('restart', ESTIMATE.server);
  }
}

/**
 * Records the server process just started for `e` (its start-up, ms, and its RSS at readiness,
 * bytes: lifecycle/memory.ts) in `e.starts`; the group's stop adds its RSS after load. Nothing for
 * an external target (no start-up time).
 */
function noteStart(e: Entry): void {
  const s = e.server;
  if (!s || s.startupMs === null) return;
  e.starts ??= [];
  e.starts.push({
    process: e.starts.length + 1,
    startupMs: s.startupMs,
    idleRssBytes: s.rssBytes?.() ?? null,
    afterLoadRssBytes: null,
    trialsBefore: e.trials.length,
  });
}

/** `e.starts` as a cell records them (without the scheduler's trial count), or nothing. */
function startsOf(e: Entry): Pick<CellResult, 'starts'> {
  return e.starts?.length ? { starts: e.starts.map(({ trialsBefore: _, ...s }) => s) } : {};
}

/**
 * The end of a group, also after an abort or a throw: stops every server, aggregates each
 * unfinished entry's trials into its cell and, in bench mode, writes each cell and reports it.
 */
async function closeGroup(entries: Entry[], ctx: GroupContext, ops: GroupOps): Promise<void> {
  for (const e of entries) await ops.stop(e);
  for (const e of entries) {
    if (e.final || !e.trials.length) continue;
    e.final = {
      ...aggregateTrials(e.trials, ctx.rounds),
      startupMs: e.base.startupMs,
      overheadMs: ops.overhead(e),
      ...startsOf(e),
      ...(e.native ? { nativeCheck: e.native } : {}),
    };
  }
  if (ctx.mode !== 'bench') return;
  for (const e of entries) {
    if (!e.final) continue;
    ctx.sink.writeCell(e.final);
    // With interleaved rounds the table model judges noise (its F test), not the solo windows' spread.
    const noisy = e.final.stats?.noisy && !e.final.stats.paired;
    ctx.progress.cellDone(
      e.id,
      e.label,
      e.final,
      e.final.status !== 'ok' || noisy ? `  ${e.label}: ${describe(e.final)}${noisy ? ' — noisy' : ''}` : undefined,
    );
  }
}

/** Runs one group; returns its final cells (also written through `ctx.sink` in bench mode). */
export async function runGroup(cells: CellSpec[], ctx: GroupContext): Promise<CellResult[]> {
  const ext = Boolean(ctx.externalUrl);
  const entries = makeEntries(cells, ctx, ext);
  const ops = groupOps(entries, ctx, ext);
  // The plan run.ts counted for this group (the same interleaves flag), and what was closed of it
  // before: each phase is marked done as it ends, and what did not run (phases of cells that left
  // early, rounds a driver could not interleave) is skipped at the group's end.
  const plan = groupPlan(cells, ctx.rounds, ctx.mode, ctx.driver.interleaves && !ext);
  const closed0 = ctx.progress.closedMs();
  const [first] = cells;
  if (!first) throw new Error('runGroup: a group needs at least one cell');
  ctx.progress.step(
    `${first.scenario.name} · ${first.profile.name} · ${ctx.driverName} · Node ${[...new Set(cells.map((c) => c.node.major))].join(', ')}: ${ctx.mode === 'verify' ? 'starting and verifying' : 'starting, verifying (contract + burst) and warming'} ${cells.length} server(s)`,
  );
  try {
    await startAndVerify(entries, ctx, ops, ext);
    if (ctx.mode === 'verify') {
      ctx.progress.settle(partsMs(plan.parts), closed0);
      for (const e of ops.alive())
        ops.finish(e, {
          status: 'ok',
          verification: e.verification,
          startupMs: e.base.startupMs,
          overheadMs: ops.overhead(e),
        });
      return entries.map((e) => e.final).filter((c): c is CellResult => c !== null);
    }
    const p = first.profile;
    if (p.warmupS > 0) await runWarmup(ctx, ops, p);
    const shape = p.driver !== 'k6' ? p.capacity : undefined;
    const openLoop = shape ? openLoopFor(ctx) : null;
    if (shape && openLoop && !openLoop.driver)
      for (const e of ops.alive()) {
        await ops.stop(e);
        ops.finish(e, { status: 'skipped', logFile: null, failure: { reason: openLoop.note, logTail: '' } });
      }
    await runRounds(entries, ctx, ops, p, shape && openLoop ? { shape, openLoop } : null);
    await runInterleaved(entries, ctx, ops, p);
    await runNativeCheck(entries, ctx, p);
    ctx.progress.settle(partsMs(plan.parts), closed0);
  } finally {
    await closeGroup(entries, ctx, ops);
  }
  return entries.map((e) => e.final).filter((c): c is CellResult => c !== null);
}
