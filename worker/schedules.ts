// Every schedule this service runs, and the ones it no longer runs, from one place: the worker ensures
// exactly these at start (src/temporal/schedules.ts creates, updates and deletes them). Each area declares
// its own (src/housekeeping/schedules.ts, src/compliance/schedules.ts, src/store/schedules.ts).
import { retentionScheduleSpecs } from '../src/compliance/schedules';
import type { Config } from '../src/config';
import { housekeepingScheduleSpecs } from '../src/housekeeping/schedules';
import { retiredStoreScheduleIds, storeScheduleSpecs } from '../src/store/schedules';
import type { ScheduleSpec } from '../src/temporal/schedule-spec';

/** Every schedule of this service (a new area's schedules are added here). */
export function scheduleSpecs(config: Config): ScheduleSpec[] {
  return [...housekeepingScheduleSpecs(config), ...retentionScheduleSpecs(config), ...storeScheduleSpecs(config)];
}

/**
 * Schedules this service no longer runs, deleted by the worker at start where they still exist:
 * `activation-recovery` covered the gap between an activation's commit and its start, which the start
 * relay (src/workflow-starts/relay.ts) now closes for every run, from Postgres.
 */
export const RETIRED_SCHEDULE_IDS = ['activation-recovery'];

/** What the worker deletes at start: the retired schedules, and the store's while the store is off. */
export function retiredScheduleIds(config: Config): string[] {
  return [...RETIRED_SCHEDULE_IDS, ...retiredStoreScheduleIds(config)];
}
