/**
 * The report's header facts about its runs: the run list, the machines, each run's driver
 * fidelity sentence, whether ranking fell back to autocannon, the hosts behind a set of tables,
 * the scenarios with their baselines, and every run's ratios to its own baseline (the page's run
 * comparison), all from the runs' metadata and the analysis' tables.
 */
import { getProfile } from '../../core/profiles.ts';
import { NATIVE_FALLBACK_NOTE } from '../../drivers/driver-registry.ts';
import { buildTables } from '../../analysis/tables.ts';
import type { RunMeta } from '../../store/results.ts';
import { fmtGiB } from '../../core/format.ts';
import { type MachineFacts, machineKey } from '../../core/machine.ts';
import type { ReportSnapshot } from '../snapshot.ts';
import type { FidelityView, ReportView, RunRatioView, TableView } from '../view.ts';
import { estimateOf } from './view-format.ts';

/** The run's driver fidelity check (RunMeta.fidelity, or driverCrossCheck in older runs) as data, or null without one. */
export function fidelityOf(m: RunMeta): FidelityView | null {
  const summary = m.fidelity?.summary ?? m.driverCrossCheck?.summary;
  return summary ? { runId: m.runId, summary: summary.replace(/`/g, '').replace(/\.\s*$/, '') } : null;
}

/** The Method section's line of a run's check: "driver fidelity (run X): driver fidelity on …". */
export function fidelityLine(f: FidelityView): string {
  return `driver fidelity (run ${f.runId}): ${f.summary}`;
}

/** The how-sure line's part: the summary when it says "driver fidelity on …", else "driver fidelity: " before it; "driver fidelity: not measured" without a check. */
export function fidelityClause(f: FidelityView | undefined): string {
  if (!f) return 'driver fidelity: not measured';
  return f.summary.startsWith('driver fidelity on ') ? f.summary : `driver fidelity: ${f.summary}`;
}

/** A run's machine as one line: CPU model (with family, model and stepping when recorded), cores, RAM, OS and arch, and its CPU plan. */
export function machineLine(m: RunMeta): string {
  const x = m.machine;
  const id = x.cpu ? ` (family ${x.cpu.family}, model ${x.cpu.model}, stepping ${x.cpu.stepping})` : '';
  return `${x.cpuModel}${id}, ${x.cores} cores, ${fmtGiB(x.memoryBytes)} RAM, ${x.os} (${x.arch}); ${m.cpuPlan.note}`;
}

/** One run of the report's run list (`cells`: how many cells it stored). */
export function runView(m: RunMeta, cells: number): RunView {
  return {
    runId: m.runId,
    startedAt: m.startedAt,
    state: m.state,
    profile: m.profile,
    node: m.node.version,
    commit: `${m.git.commit?.slice(0, 10) ?? 'unknown'}${m.git.dirty ? '+dirty' : ''}`,
    machine: `${m.machine.cpuModel} · ${m.machine.cores} cores`,
    cpuPlan: m.cpuPlan.note,
    cells,
  };
}
type RunView = ReportView['runs'][number];

/** Every run's ratios to its own baseline, per row and load shape, for the page's run comparison (failed rows left out). */
export function ratiosOf(snapshot: ReportSnapshot, scenarios: { name: string; baseline?: string }[]): RunRatioView[] {
  const all = snapshot.runs.map((r) => ({ meta: r.meta, cells: [...r.cells] }));
  const out: RunRatioView[] = [];
  for (const run of all) {
    for (const t of buildTables(all, { scenarios, runId: run.meta.runId })) {
      for (const r of t.rows) {
        if (!r.vsBaseline || r.status === 'failed') continue;
        out.push({
          runId: t.runId,
          key: `${r.label}|${t.key.scenario}|${t.key.profile}|${t.key.driver}|${t.key.nodeMajor}`,
          label: r.label,
          scenario: t.key.scenario,
          profile: t.key.profile,
          driver: t.key.driver,
          nodeMajor: t.key.nodeMajor,
          ratio: estimateOf(r.vsBaseline),
        });
      }
    }
  }
  return out;
}

/** The scenarios with their baselines for buildTables (GRAPHQL's Scenario.baseline when present). */
export function scenarioList(snapshot: ReportSnapshot): { name: string; baseline?: string }[] {
  return snapshot.scenarios.map((s) => (s.baseline ? { name: s.name, baseline: s.baseline } : { name: s.name }));
}

/** The machines of the runs behind `tables` (their meta.json `machine`; one per distinct core/machine.ts `machineKey`). */
export function hostsOf(tables: TableView[], metas: RunMeta[]): MachineFacts[] {
  const ids = new Set(tables.map((t) => t.runId));
  const byKey = new Map(metas.filter((m) => ids.has(m.runId)).map((m) => [machineKey(m.machine), m.machine]));
  return [...byKey.values()];
}

/**
 * Fell back to autocannon for ranking: a run whose profile asked for the `native` driver
 * (`design.driverAsked`; in older runs, a profile that is native today and a fidelity check skipped
 * for want of wrk, since a profile's driver can change: `pipelined` ranked with autocannon until
 * wrk could pipeline) measured by autocannon.
 */
export function fallbackOf(tables: TableView[], metas: RunMeta[]): string | null {
  const fell = metas.filter((m) => {
    let native = false;
    try {
      native = m.design?.driverAsked
        ? m.design.driverAsked === 'native'
        : getProfile(m.profile).driver === 'native' && m.fidelity?.status === 'skipped';
    } catch {
      native = false;
    }
    // Runs before the native driver existed (no `design` record) chose autocannon on purpose.
    return native && m.design !== undefined && tables.some((t) => t.runId === m.runId && t.driver === 'autocannon');
  });
  if (!fell.length) return null;
  const chosen = fell.filter((m) => m.command.some((a) => a === '--driver' || a.startsWith('--driver=')));
  const silent = fell.filter((m) => !chosen.includes(m));
  const runs = (ms: RunMeta[]) => `run${ms.length > 1 ? 's' : ''} ${ms.map((m) => `\`${m.runId}\``).join(', ')}`;
  return [
    silent.length ? `ranking fell back to autocannon in ${runs(silent)}: ${NATIVE_FALLBACK_NOTE}.` : '',
    chosen.length
      ? `ranked with autocannon by choice (--driver) in ${runs(chosen)}: it may be the bottleneck on the fastest cells (such cells are flagged client-bound), and the run could not check its fidelity against wrk.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
}
