// ensureSchedules on the dev server (the Java time-skipping server has no schedules): idempotent,
// one schedule per id, the interval follows the configuration, an operator's pause survives, and
// the schedule's action really starts the workflow on the task queue; retired schedules are deleted.
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { echoWorkflow } from '../fixtures/sleep-workflow';
import { loadConfig } from '../../src/config';
import { deleteRetiredSchedules, ensureSchedules, scheduleSpec } from '../../src/temporal/schedules';
import { RETIRED_SCHEDULE_IDS, scheduleSpecs } from '../../worker/schedules';
import { eventually } from '../helpers/app';
import { bundleWorkflows, createLocalEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
const logged: Array<Record<string, unknown>> = [];
const logger = { info: (fields: Record<string, unknown>) => void logged.push(fields) };

beforeAll(async () => {
  env = await createLocalEnv();
});

afterAll(async () => {
  await env?.teardown();
});

const echoEvery = (scheduleId: string, taskQueue: string, every: number, value = 'tick') =>
  scheduleSpec<typeof echoWorkflow>({
    scheduleId,
    workflowType: 'echoWorkflow',
    args: [value],
    every,
    taskQueue,
    description: `echoes ${value}`,
  });

async function scheduleIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const schedule of env.client.schedule.list()) ids.push(schedule.scheduleId);
  return ids.sort();
}

it('creates a missing schedule, then updates it in place: one schedule, the new interval, arguments and note', async () => {
  const taskQueue = uniqueTaskQueue('schedules');
  expect(await ensureSchedules(env.client, [echoEvery('echo-a', taskQueue, 60_000)], logger)).toEqual({ 'echo-a': 'created' });
  expect(await ensureSchedules(env.client, [echoEvery('echo-a', taskQueue, 120_000, 'tock')], logger)).toEqual({ 'echo-a': 'updated' });

  await eventually(async () => expect(await scheduleIds()).toEqual(['echo-a']), 10_000);
  const described = await env.client.schedule.getHandle('echo-a').describe();
  expect(described.spec.intervals).toMatchObject([{ every: 120_000 }]);
  expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'echoWorkflow', args: ['tock'], taskQueue });
  expect(described.state).toMatchObject({ paused: false, note: 'echoes tock' });
  expect(described.memo).toEqual({ description: 'echoes tick' });
  expect(logged.map((l) => [l.scheduleId, l.everyMs, l.outcome])).toEqual([
    ['echo-a', 60_000, 'created'],
    ['echo-a', 120_000, 'updated'],
  ]);
});

it('keeps a schedule an operator paused paused, with the operator note', async () => {
  const taskQueue = uniqueTaskQueue('schedules');
  await ensureSchedules(env.client, [echoEvery('echo-paused', taskQueue, 60_000)], logger);
  await env.client.schedule.getHandle('echo-paused').pause('investigating INC-42');

  await ensureSchedules(env.client, [echoEvery('echo-paused', taskQueue, 30_000)], logger);
  const described = await env.client.schedule.getHandle('echo-paused').describe();
  expect(described.state).toMatchObject({ paused: true, note: 'investigating INC-42' });
  expect(described.spec.intervals).toMatchObject([{ every: 30_000 }]);
});

it('starts the declared workflow with its arguments on the declared task queue', async () => {
  const taskQueue = uniqueTaskQueue('schedules');
  await ensureSchedules(env.client, [echoEvery('echo-run', taskQueue, 3_600_000, 'ran')], logger);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../fixtures/sleep-workflow')),
    dataConverter: testDataConverter,
  });
  await worker.runUntil(async () => {
    await env.client.schedule.getHandle('echo-run').trigger();
    await eventually(async () => {
      const [recent] = (await env.client.schedule.getHandle('echo-run').describe()).info.recentActions;
      expect(recent).toBeDefined();
      expect(await env.client.workflow.getHandle(recent.action.workflow.workflowId).result()).toBe('ran');
    }, 20_000);
  });
});

// Issue 20: "Remove it (the activation-recovery schedule) ... and make the worker delete the old schedule if it exists."
it('deletes a retired schedule that exists, and takes one already gone in its stride', async () => {
  const taskQueue = uniqueTaskQueue('schedules');
  await ensureSchedules(env.client, [echoEvery('activation-recovery', taskQueue, 60_000)], logger);
  await eventually(async () => expect(await scheduleIds()).toContain('activation-recovery'), 10_000);

  expect(RETIRED_SCHEDULE_IDS).toContain('activation-recovery');
  expect(await deleteRetiredSchedules(env.client, RETIRED_SCHEDULE_IDS, logger)).toEqual(['activation-recovery']);
  await eventually(async () => expect(await scheduleIds()).not.toContain('activation-recovery'), 10_000);
  expect(await deleteRetiredSchedules(env.client, RETIRED_SCHEDULE_IDS, logger)).toEqual([]);
  expect(scheduleSpecs(loadConfig({ NODE_ENV: 'test' })).map((s) => s.scheduleId)).not.toContain('activation-recovery');
});
