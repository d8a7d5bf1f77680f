/**
 * Server processes shared by the groups of one run (issue 22, "Resolution"). The table model's unit
 * is a server process (profiles.ts `InterleaveShape.instances`), and a process used to cost about
 * 4 s per cell: a start, the contract check and a 3 s warm-up alone (docs/noise.md, "What the
 * default bake-off costs"). A contender's server answers every scenario, so the pool keeps process
 * k of each contender alive from the first group that starts it to the end of the run, and every
 * later group's server process k is that same process: no second start, and a warm-up of the new
 * scenario only (group.ts `warmRestarted`), since the HTTP stack, its parser and its router are
 * already warm.
 *
 * A process is keyed by contender folder, variant, Node runtime, whether it got DATABASE_URL
 * (jobs.ts `needsDatabase`) and its process number. A group holds a lease on it: the lease's
 * `stop()` only hands it back (0 ms). A process that died is started again on the next lease; two
 * cells of one group that map to one key (never planned so) each get a process of their own.
 * `closeAll` stops every process (the run's end, also after an abort or a throw).
 *
 * Kept processes that served different histories drift apart (self-test 2026-11-26T12-40-23Z-59cd:
 * the process effect of identical copies grew 3–7× in the scenarios after the first, as shared code
 * was re-optimized for each new scenario's types at different times). So every new pooled process
 * first serves a **mix** of all the scenarios the run will measure on it (`mixOf`; group.ts
 * `warmMix`), before its first scenario's own warm-up: its code sees every scenario's types from
 * the start, the same way in every process.
 */
import type { CellSpec } from './plan.ts';
import { needsDatabase } from './jobs.ts';
import type { Lease, Lifecycle, Pool, TargetHandle } from './scheduler-types.ts';

interface Pooled {
  handle: TargetHandle;
  logFile: string;
  leased: boolean;
}

/** The pool key of `cell`'s server process `instance` (see the module comment). */
export function poolKey(cell: CellSpec, instance: number): string {
  return [cell.manifest.dir, cell.variant ?? '', cell.node.path, needsDatabase(cell) ? 'db' : '', instance].join('|');
}

/** The run's shared server processes (see the module comment). */
export class ServerPool implements Pool {
  private readonly servers = new Map<string, Pooled>();
  private readonly own: TargetHandle[] = [];
  private readonly lifecycle: Lifecycle;
  private readonly plan: CellSpec[];

  /**
   * `lifecycle`: starts the processes (a local one: an external target is never pooled); `plan`:
   * every cell of the run, in plan order (for `mixOf`).
   */
  constructor(lifecycle: Lifecycle, plan: CellSpec[] = []) {
    this.lifecycle = lifecycle;
    this.plan = plan;
  }

  /**
   * The cells of the run's other scenarios that `cell`'s pooled processes will serve (same key but
   * the process number; one per scenario, in plan order): a new process's mixed warm-up.
   */
  mixOf(cell: CellSpec): CellSpec[] {
    const key = poolKey(cell, 0);
    const seen = new Set([cell.scenario.name]);
    const out: CellSpec[] = [];
    for (const c of this.plan) {
      if (seen.has(c.scenario.name) || poolKey(c, 0) !== key) continue;
      seen.add(c.scenario.name);
      out.push(c);
    }
    return out;
  }

  /**
   * A lease on `cell`'s server process `instance`: the live pooled one, else one started now with
   * `logFile` as its log. Throws what `Lifecycle.start` throws (StartFailure, UserError).
   */
  async acquire(cell: CellSpec, instance: number, logFile: string): Promise<Lease> {
    const key = poolKey(cell, instance);
    const have = this.servers.get(key);
    if (have && !have.leased && have.handle.exitInfo() === null) {
      have.leased = true;
      return { server: this.lease(have), logFile: have.logFile, reused: true };
    }
    if (have?.leased) {
      // Not planned (one key per group), but never share one process between two cells of a round.
      const handle = await this.lifecycle.start(cell, logFile);
      this.own.push(handle);
      return { server: handle, logFile, reused: false };
    }
    if (have) {
      this.servers.delete(key);
      await have.handle.stop();
      this.lifecycle.afterStop(have.logFile);
    }
    const handle = await this.lifecycle.start(cell, logFile);
    const p: Pooled = { handle, logFile, leased: true };
    this.servers.set(key, p);
    return { server: this.lease(p), logFile, reused: false };
  }

  /** True when the pool has a live process for `cell`'s server process `instance`. */
  holds(cell: CellSpec, instance: number): boolean {
    return this.servers.get(poolKey(cell, instance))?.handle.exitInfo() === null;
  }

  /** The number of processes the pool started and still holds. */
  get size(): number {
    return this.servers.size;
  }

  /** Stops every process of the pool (and any unpooled one it started), capping their logs. */
  async closeAll(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    for (const p of all) {
      await p.handle.stop();
      this.lifecycle.afterStop(p.logFile);
    }
    for (const h of this.own.splice(0)) await h.stop();
  }

  /** A handle on `p`'s process whose stop() hands the process back to the pool. */
  private lease(p: Pooled): TargetHandle {
    const h = p.handle;
    let held = true;
    return {
      baseUrl: h.baseUrl,
      pid: h.pid,
      startupMs: h.startupMs,
      exitInfo: () => h.exitInfo(),
      died: h.died,
      cpuUs: () => h.cpuUs(),
      stop: async () => {
        if (held) p.leased = false;
        held = false;
        return 0;
      },
    };
  }
}
