/**
 * The JSON exporter (`export --format json`): `{ schema: "bakeoff-export", version: 2,
 * generatedAt: ISO date, runs: [{ run_id, started_at, state, profile, commit, cpu_model, cores,
 * memory_gib, os, arch, node_version }], rows: ExportRow[], footprint: one row per contender and
 * run of the Footprint table, Node's floor included (report/footprint-view.ts `footprintExportRows`) }`. The row fields and their
 * rounding are documented in rows.ts (version 2 adds the machine metadata per row, p95 and
 * p99.9, ranks, ratios with their interval kind, and rounds every number).
 */
import { sig } from '../../core/format.ts';
import type { ReportSnapshot } from '../snapshot.ts';
import { buildView } from '../view-build.ts';
import { EXPORT_SCHEMA, exportRows } from './rows.ts';
import { footprintExportRows } from '../footprint-view.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';

export const jsonExporter: Exporter = {
  format: 'json',
  description: `JSON (schema ${EXPORT_SCHEMA.schema} v${EXPORT_SCHEMA.version})`,
  extension: 'json',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    const v = buildView(snapshot, options);
    const runs = snapshot.runs.map(({ meta: m }) => ({
      run_id: m.runId,
      started_at: m.startedAt,
      state: m.state,
      profile: m.profile,
      commit: `${m.git.commit ?? 'unknown'}${m.git.dirty ? '+dirty' : ''}`,
      cpu_model: m.machine.cpuModel,
      cores: m.machine.cores,
      memory_gib: sig(m.machine.memoryBytes / 2 ** 30, 3),
      os: m.machine.os,
      arch: m.machine.arch,
      node_version: m.node.version,
    }));
    return `${JSON.stringify({ ...EXPORT_SCHEMA, generatedAt: v.generatedAt, runs, rows: exportRows(snapshot, v), footprint: footprintExportRows(v.footprint ?? []) }, null, 2)}\n`;
  },
};
