/**
 * One group (scenario × profile × driver × Node major): start every server of the group, verify
 * each (contract check, then the concurrency burst: contract/burst.ts), warm each once, then
 * `trials` rounds, each in its own seeded shuffled order, one measured window per server and
 * round. Servers stay alive for the group, then stop. Each trial is written as it finishes;
 * each cell (its trials aggregated) at the end, also after an abort. A server that dies makes
 * its cell `crashed` and the others go on. In `verify` mode: start and contract check only.
 * After verification and after every window the server's listening sockets are read again
 * (window.ts `loopbackBreach`): one off loopback makes the cell `error` with the address.
 * Times in ms.
 */
import { measuredSeconds, type Profile } from '../core/profiles.ts';
import { UserError } from '../core/errors.ts';
import type { CellResult } from '../store/results.ts';
import { aggregateTrials, describe } from './aggregate.ts';
import { openLoopFor, runCapacityRound } from './capacity.ts';
import { baseResult, cellIdOf, needsDatabase } from './jobs.ts';
import { cellLabel, type CellSpec } from './plan.ts';
import { ESTIMATE } from './progress.ts';
import { roundOrders } from './rounds.ts';
import { StartFailure, type Entry, type GroupContext } from './types.ts';
import { loopbackBreach, runWindow, verifyEntry } from './window.ts';

export type { GroupContext, ResultSink } from './types.ts';

/** The planned cost of a group for the ETA, ms, and its measured windows. */
export function groupPlan(
  cells: CellSpec[],
  trials: number,
  mode: 'bench' | 'verify',
): { ms: number; windows: number } {
  if (!cells.length) return { ms: 0, windows: 0 };
  const p = cells[0].profile;
  const setup = cells.length * ESTIMATE.server;
  if (mode === 'verify') return { ms: setup, windows: 0 };
  const warm = cells.length * (p.warmupS * 1000 + (p.warmupS > 0 ? ESTIMATE.windowOverhead : 0));
  return { ms: setup + warm + cells.length * trials * windowMs(p), windows: cells.length * trials };
}

function windowMs(p: Profile): number {
  // A capacity round: the peak window plus a search of about 6 steps (scheduler/capacity-search.ts).
  if (p.driver !== 'k6' && p.capacity)
    return (measuredSeconds(p) + 6 * (p.capacity.stepS + 0.3)) * 1000 + ESTIMATE.windowOverhead;
  return measuredSeconds(p) * 1000 + ESTIMATE.windowOverhead;
}

/** Runs one group; returns its final cells (also written through `ctx.sink` in bench mode). */
export async function runGroup(cells: CellSpec[], ctx: GroupContext): Promise<CellResult[]> {
  const ext = Boolean(ctx.externalUrl);
  const entries: Entry[] = cells.map((cell) => {
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
  const alive = () => entries.filter((e) => !e.final && e.server);
  const overhead = (e: Entry) => (ext ? null : { ...e.ms, total: e.ms.start + e.ms.verify + e.ms.teardown });
  const finish = (e: Entry, patch: Partial<CellResult>) => {
    e.final = { ...e.base, ...patch, finishedAt: new Date().toISOString() };
  };
  const stop = async (e: Entry) => {
    if (!e.server) return;
    const s = e.server;
    e.server = null;
    e.ms.teardown = await s.stop();
    ctx.lifecycle.afterStop(e.logFile);
  };
  const tail = (e: Entry) => (ext ? '' : ctx.lifecycle.logTail(e.logFile));
  const plan = groupPlan(cells, ctx.trials, ctx.mode);
  const first = cells[0];
  ctx.progress.step(
    `${first.scenario.name} · ${first.profile.name} · ${ctx.driverName} · Node ${first.node.major}: ${ctx.mode === 'verify' ? 'starting and verifying' : 'starting, verifying (contract + burst) and warming'} ${cells.length} server(s)`,
  );
  try {
    // Start and verify every server of the group.
    for (const e of entries) {
      if (ctx.signal.aborted) break;
      const build = ctx.builds.get(e.cell.manifest.name);
      if (build && !build.ok) {
        finish(e, {
          status: 'build-failed',
          logFile: null,
          failure: { reason: `build failed: ${e.cell.manifest.build}`, logTail: build.output },
        });
        continue;
      }
      const pre = ctx.precheck(e.cell);
      if (pre) {
        finish(e, { status: pre.status, logFile: null, failure: { reason: pre.reason, logTail: '' } });
        continue;
      }
      const t0 = performance.now();
      try {
        e.server = await ctx.lifecycle.start(e.cell, e.logFile);
      } catch (err) {
        // Ctrl-C/SIGTERM mid-start: stopAll killed the server; that is the interrupt, not a start failure.
        if (ctx.signal.aborted && !(err instanceof UserError)) break;
        if (err instanceof UserError || !(err instanceof StartFailure)) throw err;
        finish(e, { status: 'start-failed', failure: { reason: err.message, logTail: err.logTail } });
        continue;
      }
      e.ms.start = ext ? 0 : performance.now() - t0;
      await verifyEntry(e, ctx);
      if (ctx.signal.aborted) break; // a server killed by the interrupt did not crash
      const died = e.server?.exitInfo();
      const wideAtVerify = died ? null : loopbackBreach(e, 'verification');
      if (wideAtVerify) {
        await stop(e);
        finish(e, {
          status: 'error',
          verification: e.verification,
          overheadMs: overhead(e),
          failure: { reason: wideAtVerify, logTail: tail(e) },
        });
      } else if (died) {
        await stop(e);
        finish(e, {
          status: 'crashed',
          verification: e.verification,
          overheadMs: overhead(e),
          failure: {
            reason: `server ${died} during verification (contract check or concurrency burst)`,
            logTail: tail(e),
          },
        });
      } else if (e.verification?.level === 'fail') {
        await stop(e);
        finish(e, {
          status: 'verify-failed',
          verification: e.verification,
          overheadMs: overhead(e),
          failure: { reason: `verification failed: ${e.verification.reasons.join('; ')}`, logTail: tail(e) },
        });
      }
    }
    ctx.progress.advance(cells.length * ESTIMATE.server);
    if (ctx.mode === 'verify') {
      for (const e of alive())
        finish(e, { status: 'ok', verification: e.verification, startupMs: e.base.startupMs, overheadMs: overhead(e) });
      return entries.map((e) => e.final).filter((c): c is CellResult => c !== null);
    }
    const p = cells[0].profile;
    // Warm each server once.
    if (p.warmupS > 0)
      for (const e of alive()) {
        if (ctx.signal.aborted) break;
        const err = await runWindow(e, ctx, p.warmupS, true);
        if (ctx.signal.aborted) break; // a server killed by the interrupt did not crash
        const died = e.server?.exitInfo();
        const wide = died ? null : loopbackBreach(e, 'the warm-up');
        if (died || wide || (typeof err === 'string' && !ctx.signal.aborted))
          finish(e, {
            status: died ? 'crashed' : 'error',
            verification: e.verification,
            overheadMs: overhead(e),
            failure: {
              reason: died
                ? `server ${died} during the warm-up`
                : (wide ?? `load driver failed in the warm-up: ${err}`),
              logTail: tail(e),
            },
          });
      }
    ctx.progress.advance(plan.ms - cells.length * ESTIMATE.server - cells.length * ctx.trials * windowMs(p));
    const shape = p.driver !== 'k6' ? p.capacity : undefined;
    const openLoop = shape ? openLoopFor(ctx) : null;
    if (shape && openLoop && !openLoop.driver)
      for (const e of alive()) {
        await stop(e);
        finish(e, { status: 'skipped', logFile: null, failure: { reason: openLoop.note, logTail: '' } });
      }
    // The rounds: every live server once per round, in the round's shuffled order.
    const orders = roundOrders(entries, ctx.trials, ctx.seed, ctx.groupIndex);
    for (const [r, order] of orders.entries()) {
      for (const e of order) {
        if (ctx.signal.aborted) break;
        if (e.final || !e.server) {
          ctx.progress.advance(windowMs(p));
          continue;
        }
        ctx.progress.window(
          { cell: e.id, label: e.label, round: r + 1, rounds: ctx.trials, durationS: measuredSeconds(p) },
          windowMs(p),
        );
        // A capacity round: the closed-loop peak window, then the open-loop search (scheduler/capacity.ts).
        const cap = shape && openLoop?.driver ? await runCapacityRound(e, ctx, r + 1, shape, openLoop.driver) : null;
        const out = cap ? cap.out : await runWindow(e, ctx, measuredSeconds(p), false);
        if (ctx.signal.aborted && !cap?.search?.steps.length) {
          ctx.progress.close();
          break; // an interrupted window is not a trial
        }
        const died = e.server.exitInfo();
        const wide = died ? null : loopbackBreach(e, `round ${r + 1}`);
        const lost = needsDatabase(e.cell) && ctx.db && !(await ctx.db.alive()) ? { servicesLost: ['database'] } : {};
        const trial: CellResult =
          typeof out === 'string' || died || wide || cap?.error
            ? {
                ...e.base,
                ...lost,
                status: died ? 'crashed' : 'error',
                round: r + 1,
                verification: e.verification,
                ...(cap?.search ? { capacitySearch: cap.search } : {}),
                failure: {
                  reason: died
                    ? `server ${died} during the load run`
                    : (wide ?? `load driver failed: ${typeof out === 'string' ? out : cap?.error}`),
                  logTail: tail(e),
                },
                finishedAt: new Date().toISOString(),
              }
            : {
                ...e.base,
                ...lost,
                ...out,
                ...(cap?.search ? { capacitySearch: cap.search } : {}),
                status: 'ok',
                round: r + 1,
                verification: e.verification,
                finishedAt: new Date().toISOString(),
              };
        e.trials.push(trial);
        ctx.sink.writeTrial(trial, e.trials.length);
        ctx.progress.windowEnd(trial, `  ${describe(trial)}`);
        if (trial.status !== 'ok') await stop(e);
      }
      if (ctx.signal.aborted) break;
    }
  } finally {
    for (const e of entries) await stop(e);
    for (const e of entries) {
      if (e.final || !e.trials.length) continue;
      e.final = { ...aggregateTrials(e.trials, ctx.trials), startupMs: e.base.startupMs, overheadMs: overhead(e) };
    }
    if (ctx.mode === 'bench')
      for (const e of entries) {
        if (!e.final) continue;
        ctx.sink.writeCell(e.final);
        const noisy = e.final.stats?.noisy;
        ctx.progress.cellDone(
          e.id,
          e.label,
          e.final,
          e.final.status !== 'ok' || noisy ? `  ${e.label}: ${describe(e.final)}${noisy ? ' — noisy' : ''}` : undefined,
        );
      }
  }
  return entries.map((e) => e.final).filter((c): c is CellResult => c !== null);
}
