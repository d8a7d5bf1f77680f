/**
 * Where a run writes: in bench mode a new run folder in the store (store/runs.ts `openRun`, with
 * the run's metadata: machine, Node, git, CPU plan, packages, trials and shuffle seed, design);
 * in verify mode nothing under results/, only server logs in a temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BURST_REQUESTS } from '../contract/burst.ts';
import { ROOT } from '../core/paths.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import { gitState, machineInfo, resolvedPackages } from '../store/results.ts';
import { installSizes } from '../store/install-size.ts';
import { openRun, type RunWriter } from '../store/runs.ts';
import type { CellSpec } from './plan.ts';
import type { ResultSink } from './scheduler-types.ts';

/**
 * Opens where the run's results go: `writer` (the store's run folder; null in verify mode),
 * `tmpLogs` (verify mode's temp log folder, removed by the caller at the end; else null) and the
 * `sink` the groups write through. Throws when the run folder cannot be created.
 */
export function openResultSink(
  o: {
    cells: CellSpec[];
    resultsDir: string;
    command: string[];
    profileName: string;
    upstreamDelayMs: number;
    baselines?: Record<string, string>;
    burstRequests?: number;
  },
  mode: 'bench' | 'verify',
  cpuPlan: CpuPlan,
  rounds: number,
  seed: number,
): { writer: RunWriter | null; tmpLogs: string | null; sink: ResultSink } {
  if (mode === 'verify') {
    const tmpLogs = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'bench-verify-'));
    return {
      writer: null,
      tmpLogs,
      sink: {
        writeTrial: () => {},
        writeCell: () => {},
        logFile: (id) => path.join(tmpLogs, `${id}.log`),
        logRef: () => null,
      },
    };
  }
  const manifests = [...new Map(o.cells.map((c) => [c.manifest.name, c.manifest])).values()];
  const writer = openRun(o.resultsDir, {
    command: o.command,
    profile: o.profileName,
    machine: machineInfo(),
    node: { version: process.version, execPath: process.execPath },
    git: gitState(ROOT),
    cpuPlan,
    upstreamDelayMs: o.upstreamDelayMs,
    packages: resolvedPackages(
      ROOT,
      manifests.map((m) => m.dir),
    ),
    footprint: {
      install: installSizes(
        ROOT,
        manifests.map((m) => m.dir),
      ),
    },
    database: null,
    nodes: [...new Map(o.cells.map((c) => [c.node.major, { major: c.node.major, version: c.node.version }])).values()],
    // Stored as `trials.count` (the field name of every run so far): the number of rounds.
    trials: { count: rounds, shuffleSeed: seed },
    design: {
      baselines: o.baselines ?? {},
      burstRequests: o.burstRequests ?? BURST_REQUESTS,
      ...(o.cells[0] ? { driverAsked: o.cells[0].profile.driver } : {}),
    },
  });
  return {
    writer,
    tmpLogs: null,
    sink: {
      writeTrial: (c, n) => writer.writeTrial(c, n),
      writeCell: (c) => writer.writeCell(c),
      logFile: (id) => writer.logFile(id),
      logRef: (f) => writer.relative(f),
    },
  };
}
