// Temporal Schedules the worker owns. Each one is declared once (worker/schedules.ts lists them); at start the
// worker calls ensureSchedules, which creates a missing schedule and brings an existing one to the
// declared interval, workflow, arguments and task queue. Running it twice (or from two workers at
// once) leaves one schedule per id. Operators see them in the Temporal UI under Schedules.
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { Logger } from 'pino';
import type { ScheduleSpec } from './schedule-spec';

// What one schedule is: its own module, which each part's schedules (housekeeping.ts) import.
export { scheduleSpec, type ScheduleSpec } from './schedule-spec';

/** Deletes each retired schedule that exists; one already gone is fine (two workers may race). Returns the ids deleted. */
export async function deleteRetiredSchedules(client: Client, ids: readonly string[], logger: Pick<Logger, 'info'>): Promise<string[]> {
  const deleted: string[] = [];
  for (const scheduleId of ids) {
    try {
      await client.schedule.getHandle(scheduleId).delete();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) continue;
      throw err;
    }
    deleted.push(scheduleId);
    logger.info({ scheduleId }, 'retired schedule deleted');
  }
  return deleted;
}

export type ScheduleOutcome = 'created' | 'updated';

/** The shortest catch-up window the server accepts: after an outage, one missed run is taken, not a backlog. */
const MIN_CATCHUP_MS = 10_000;

function action(spec: ScheduleSpec): ScheduleOptionsStartWorkflowAction<Workflow> {
  return {
    type: 'startWorkflow',
    workflowType: spec.workflowType,
    args: spec.args,
    taskQueue: spec.taskQueue,
    // The server appends the scheduled time, so each run has its own id.
    workflowId: spec.scheduleId,
    workflowRunTimeout: spec.runTimeout ?? spec.every,
  };
}

function policies(spec: ScheduleSpec) {
  // SKIP: a run still going when the next is due is not doubled (each run does the whole job).
  return { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: Math.max(spec.every, MIN_CATCHUP_MS) };
}

/**
 * Creates each schedule that is missing and updates each that exists (interval, action, policies).
 * An operator's pause survives: an update keeps a paused schedule paused, with the operator's note.
 */
export async function ensureSchedules(
  client: Client,
  specs: ScheduleSpec[],
  logger: Pick<Logger, 'info'>,
): Promise<Record<string, ScheduleOutcome>> {
  const outcomes: Record<string, ScheduleOutcome> = {};
  for (const spec of specs) {
    outcomes[spec.scheduleId] = await ensureSchedule(client, spec);
    logger.info(
      { scheduleId: spec.scheduleId, everyMs: spec.every, outcome: outcomes[spec.scheduleId] },
      `schedule ${outcomes[spec.scheduleId]}`,
    );
  }
  return outcomes;
}

async function ensureSchedule(client: Client, spec: ScheduleSpec): Promise<ScheduleOutcome> {
  const intervals = [{ every: spec.every }];
  try {
    await client.schedule.create({
      scheduleId: spec.scheduleId,
      spec: { intervals },
      action: action(spec),
      policies: policies(spec),
      memo: { description: spec.description },
      state: { note: spec.description },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(spec.scheduleId).update((previous) => ({
    spec: { intervals },
    action: action(spec),
    policies: policies(spec),
    state: previous.state.paused ? { paused: true, note: previous.state.note } : { paused: false, note: spec.description },
  }));
  return 'updated';
}
