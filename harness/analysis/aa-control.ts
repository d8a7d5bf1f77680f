/**
 * The A/A control's cell: a second server process of a table's baseline contender (node-http for
 * REST, postgraphile-express for GraphQL), planned as the baseline's variant `CONTROL_VARIANT`
 * (scheduler/plan.ts `withControls`) and measured in the same group and interleaved rounds as the
 * table's other cells. It is never a row of its table: analysis/tables.ts keeps it aside as the
 * table's `controlCell`, so it has no rank, is not in the answer or the leaderboard's rows, and
 * changes none of their figures; analysis/control-check.ts compares it with the baseline.
 */
import type { CellResult } from '../store/results.ts';

/** The variant name of the A/A control cell (file-name safe; its label is `controlLabel`). */
export const CONTROL_VARIANT = 'aa-control';

/** What the control's variant is, for the manifest copy that carries it (an empty environment: the same server). */
export const CONTROL_DESCRIPTION = 'the A/A control: a second, identical process of the baseline, never ranked';

/** "node-http (A/A control)": the row label of the control cell of `contender`. */
export const controlLabel = (contender: string): string => `${contender} (A/A control)`;

/** True for the A/A control cell (variant `CONTROL_VARIANT`). */
export const isControl = (c: Pick<CellResult, 'variant'>): boolean => c.variant === CONTROL_VARIANT;
