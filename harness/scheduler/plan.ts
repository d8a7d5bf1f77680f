/**
 * The plan: manifests and the scenario contract → the list of cells to run.
 * A cell is one contender (or variant) × scenario × driver × profile × Node version; this
 * module decides which cells exist, in which order, and what they are called.
 */
import type { Manifest } from '../core/manifest.ts';
import type { Scenario } from '../contract/scenarios.ts';
import type { Profile } from '../core/profiles.ts';
import type { NodeRuntime } from '../lifecycle/node-runtime.ts';
import { unknownName } from '../core/errors.ts';
import { CONTROL_DESCRIPTION, CONTROL_VARIANT, controlLabel } from '../analysis/aa-control.ts';

export interface CellSpec {
  manifest: Manifest;
  variant: string | null;
  scenario: Scenario;
  profile: Profile;
  node: NodeRuntime;
}

/** `express` or `express +variant`: the row label on the leaderboard; `node-http (A/A control)` for the A/A control (analysis/aa-control.ts). */
export function cellLabel(contender: string, variant: string | null): string {
  if (variant === CONTROL_VARIANT) return controlLabel(contender);
  return variant ? `${contender} +${variant}` : contender;
}

/** Stable file-name-safe id of a cell. */
export function cellId(
  contender: string,
  variant: string | null,
  scenario: string,
  driver: string,
  profile: string,
  nodeMajor: number,
): string {
  return [variant ? `${contender}+${variant}` : contender, scenario, driver, profile, `node${nodeMajor}`].join('__');
}

/**
 * Resolves names to manifests (UserError listing valid names for an unknown one).
 * `names` empty → every contender.
 */
export function selectContenders(all: Manifest[], names: string[]): Manifest[] {
  if (!names.length) return all;
  return names.map(
    (n) =>
      all.find((m) => m.name === n) ??
      unknownName(
        'contender',
        n,
        all.map((m) => m.name),
      ),
  );
}

/** Checks scenario names against the contract (UserError listing the valid ones). */
export function selectScenarios(all: Scenario[], names: string[]): Scenario[] {
  if (!names.length) return all;
  return names.map(
    (n) =>
      all.find((s) => s.name === n) ??
      unknownName(
        'scenario',
        n,
        all.map((s) => s.name),
      ),
  );
}

/**
 * Every cell for the selected contenders, scenarios and Node runtimes: contender by contender
 * (so a build happens once), Node major by major, base contender before its variants,
 * scenarios in contract order. A contender only gets cells for the scenarios its manifest
 * supports.
 */
export function planCells(
  manifests: Manifest[],
  scenarios: Scenario[],
  profile: Profile,
  nodes: NodeRuntime[],
  withVariants = true,
): CellSpec[] {
  const cells: CellSpec[] = [];
  for (const m of manifests) {
    const variants: (string | null)[] = [null, ...(withVariants ? Object.keys(m.variants) : [])];
    for (const node of nodes) {
      for (const variant of variants) {
        for (const s of scenarios)
          if (m.scenarios.includes(s.name)) cells.push({ manifest: m, variant, scenario: s, profile, node });
      }
    }
  }
  return cells;
}

/** The baseline contender of scenario `s` (the contract's `baseline`: node-http for REST). */
export function baselineOf(s: Scenario): string {
  return s.baseline;
}

/**
 * Adds each scenario's baseline contender (no variants) to the plan when it is not already in
 * it, for the same profile and Node runtimes, so that every ratio is taken within one run. A baseline missing from `all` (a fixture
 * folder) or not supporting the scenario is left out and listed in `missing`. `added`: baseline → the scenarios it was added for.
 */
export function withBaselines(
  cells: CellSpec[],
  all: Manifest[],
): { cells: CellSpec[]; added: Map<string, string[]>; missing: Map<string, string[]> } {
  const out = [...cells];
  const added = new Map<string, string[]>();
  const missing = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const c of cells) {
    const key = `${c.scenario.name}|${c.node.major}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const name = baselineOf(c.scenario);
    const has = cells.some(
      (x) =>
        x.manifest.name === name &&
        x.variant === null &&
        x.scenario.name === c.scenario.name &&
        x.node.major === c.node.major,
    );
    if (has) continue;
    const m = all.find((x) => x.name === name);
    const note = (map: Map<string, string[]>) =>
      map.set(name, [...new Set([...(map.get(name) ?? []), c.scenario.name])]);
    if (!m || m.composeOnly || !m.scenarios.includes(c.scenario.name)) {
      note(missing);
      continue;
    }
    out.push({ manifest: m, variant: null, scenario: c.scenario, profile: c.profile, node: c.node });
    note(added);
  }
  return { cells: out, added, missing };
}

/**
 * Adds the A/A control (analysis/aa-control.ts): for each scenario × Node major whose baseline
 * contender (`baselineOf`, no variant) is in `cells`, a second cell of that baseline with variant
 * CONTROL_VARIANT (an empty environment: the same server, its own process; label "node-http (A/A
 * control)"), same profile. It runs in the group of the scenario's other cells, in the same
 * interleaved rounds, and is never ranked (analysis/tables.ts). Call it after `withBaselines`.
 * `added`: baseline → the scenarios it was added for. Idempotent.
 */
export function withControls(cells: CellSpec[]): { cells: CellSpec[]; added: Map<string, string[]> } {
  const out = [...cells];
  const added = new Map<string, string[]>();
  for (const c of cells) {
    if (c.variant !== null || c.manifest.name !== baselineOf(c.scenario)) continue;
    const has = out.some(
      (x) =>
        x.variant === CONTROL_VARIANT &&
        x.manifest.name === c.manifest.name &&
        x.scenario.name === c.scenario.name &&
        x.node.major === c.node.major,
    );
    if (has) continue;
    const manifest = {
      ...c.manifest,
      variants: { ...c.manifest.variants, [CONTROL_VARIANT]: { description: CONTROL_DESCRIPTION, env: {} } },
    };
    out.push({ ...c, manifest, variant: CONTROL_VARIANT });
    added.set(c.manifest.name, [...new Set([...(added.get(c.manifest.name) ?? []), c.scenario.name])]);
  }
  return { cells: out, added };
}
