import type { Workflow } from '@temporalio/common';

/** One schedule the worker owns: what it starts, how often, and what an operator reads about it. */
export interface ScheduleSpec<W extends Workflow = Workflow> {
  /** Stable id, shown in the UI; the runs it starts are named `<scheduleId>-<time>`. */
  scheduleId: string;
  /** Started by type name, as each area's runs-temporal.ts starts its workflows (`W`: its contract's signature). */
  workflowType: string;
  args: Parameters<W>;
  /** Interval between runs, in milliseconds (from configuration). */
  every: number;
  taskQueue: string;
  /** One line for operators: shown as the schedule's note (plain text) and kept in its memo. */
  description: string;
  /** A run longer than this is timed out (it would otherwise block later runs: overlap is SKIP). Default: the interval. */
  runTimeout?: number;
}

/** Typed entry: `args` must fit the workflow's signature `W`, given explicitly (`scheduleSpec<HousekeepingWorkflow>({ … })`). */
export function scheduleSpec<W extends Workflow>(spec: ScheduleSpec<W>): ScheduleSpec {
  return spec;
}
