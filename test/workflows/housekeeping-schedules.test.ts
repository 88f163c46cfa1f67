/**
 * The housekeeping schedules (and the retention erasure's) on the dev server (the time-skipping server has no schedules): after
 * ensureSchedules each exists with the configured interval, its purges and its note, the worker's
 * list (scheduleSpecs) holds them, and triggering one runs the workflow with the real activities.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { loadConfig, type Config } from '../../src/config';
import { HOUSEKEEPING_SCHEDULE_IDS, housekeepingScheduleSpecs, MAX_BATCHES_PER_RUN } from '../../src/housekeeping/schedules';
import { ensureSchedules } from '../../src/temporal/schedules';
import { scheduleSpecs } from '../../worker/schedules';
import { RETENTION_BATCH, RETENTION_SCHEDULE_ID, retentionScheduleSpecs } from '../../src/compliance/schedules';
import type { HousekeepingInput } from '../../workflows/contracts/housekeeping-contract';
import { createTestApp, eventually, signUp, type TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createLocalEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(90_000);

const DAY = 24 * 3600_000;

let env: TestWorkflowEnvironment;
let t: TestApp;
let config: Config;
const logger = { info: () => undefined };

beforeAll(async () => {
  [env, t] = await Promise.all([createLocalEnv(), createTestApp()]);
  config = loadConfig({
    NODE_ENV: 'test',
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('housekeeping'),
    HOUSEKEEPING_OTP_EVERY_SECONDS: '1800',
    HOUSEKEEPING_SESSIONS_EVERY_SECONDS: '7200',
    HOUSEKEEPING_RATE_LIMITS_EVERY_SECONDS: '600',
    HOUSEKEEPING_WEBHOOK_RECEIPTS_EVERY_SECONDS: '43200',
    HOUSEKEEPING_OTP_KEEP_SECONDS: '3600',
    HOUSEKEEPING_CLOCK_SKEW_SECONDS: '120',
    HOUSEKEEPING_WEBHOOK_RECEIPTS_KEEP_DAYS: '30',
    HOUSEKEEPING_BATCH_SIZE: '500',
  });
  await ensureSchedules(env.client, [...housekeepingScheduleSpecs(config), ...retentionScheduleSpecs(config)], logger);
});
afterAll(async () => {
  await env?.teardown();
  await t?.close();
});

const describeSchedule = (id: string) => env.client.schedule.getHandle(id).describe();
const inputOf = async (id: string) => {
  const { action } = await describeSchedule(id);
  if (action.type !== 'startWorkflow') throw new Error(`${id} does not start a workflow`);
  return action.args?.[0] as HousekeepingInput;
};

it('creates the four housekeeping schedules, each with its configured interval, workflow, task queue and note', async () => {
  const expected: Array<[string, number]> = [
    [HOUSEKEEPING_SCHEDULE_IDS.otp, 1800_000],
    [HOUSEKEEPING_SCHEDULE_IDS.sessions, 7200_000],
    [HOUSEKEEPING_SCHEDULE_IDS.rateLimits, 600_000],
    [HOUSEKEEPING_SCHEDULE_IDS.webhookReceipts, 43200_000],
  ];
  for (const [id, every] of expected) {
    const described = await describeSchedule(id);
    expect(described.spec.intervals).toMatchObject([{ every }]);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'housekeepingWorkflow',
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    });
    expect(described.state).toMatchObject({ paused: false, note: expect.stringMatching(/^Purges /) as unknown });
  }
});

it('hands each schedule its purges with the configured retention and batch size', async () => {
  const common = { batchSize: 500, maxBatches: MAX_BATCHES_PER_RUN };
  expect(await inputOf(HOUSEKEEPING_SCHEDULE_IDS.otp)).toEqual({
    ...common,
    purges: [
      { target: 'otp_challenges', keepMs: 3600_000 },
      { target: 'otp_requests', keepMs: config.OTP_WINDOW_SECONDS * 1000 },
    ],
  });
  expect(await inputOf(HOUSEKEEPING_SCHEDULE_IDS.sessions)).toEqual({
    ...common,
    purges: [
      { target: 'token_blocklist', keepMs: 120_000 },
      { target: 'sessions', keepMs: 120_000 },
    ],
  });
  expect(await inputOf(HOUSEKEEPING_SCHEDULE_IDS.rateLimits)).toEqual({ ...common, purges: [{ target: 'rate_limits', keepMs: 120_000 }] });
  expect(await inputOf(HOUSEKEEPING_SCHEDULE_IDS.webhookReceipts)).toEqual({
    ...common,
    purges: [
      { target: 'webhook_receipts', keepMs: 30 * DAY },
      { target: 'webhook_inbox', keepMs: 30 * DAY },
    ],
  });
});

it('creates the daily retention-erasure schedule, which starts retentionWorkflow with its batches', async () => {
  const described = await describeSchedule(RETENTION_SCHEDULE_ID);
  expect(described.spec.intervals).toMatchObject([{ every: DAY }]);
  expect(described.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'retentionWorkflow',
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  });
  expect(described.action.type === 'startWorkflow' && described.action.args).toEqual([RETENTION_BATCH]);
  expect(described.state).toMatchObject({
    paused: false,
    note: expect.stringMatching(/^Erases the personal data .* more than 365 days ago/) as unknown,
  });
  expect(scheduleSpecs(config).map((s) => s.scheduleId)).toContain(RETENTION_SCHEDULE_ID);
});

it('is part of the list the worker ensures', () => {
  const ids = scheduleSpecs(config).map((s) => s.scheduleId);
  expect(ids).toEqual(expect.arrayContaining(Object.values(HOUSEKEEPING_SCHEDULE_IDS)));
});

it('runs when triggered: the sessions schedule purges expired sessions with the real activities', async () => {
  const { userId } = await signUp(t);
  const now = t.clock().getTime();
  const insert = (expiresAt: number) =>
    t.db.query(`insert into sessions (id, user_id, client_type, expires_at, created_at) values ($1, $2, 'web', $3, $4)`, [
      randomUUID(),
      userId,
      new Date(expiresAt),
      new Date(now - 30 * DAY),
    ]);
  await insert(now - DAY);
  await insert(now - DAY);
  const expiredBefore = async () =>
    Number((await t.db.query<{ n: string }>('select count(*) as n from sessions where expires_at < $1', [new Date(now)]))[0].n);
  expect(await expiredBefore()).toBe(2);

  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows')),
    dataConverter: testDataConverter,
    activities: realActivities(t.db, t.config, { clock: t.clock }),
  });
  await worker.runUntil(async () => {
    const handle = env.client.schedule.getHandle(HOUSEKEEPING_SCHEDULE_IDS.sessions);
    await handle.trigger();
    await eventually(async () => {
      const [recent] = (await handle.describe()).info.recentActions;
      expect(recent).toBeDefined();
      expect(await env.client.workflow.getHandle(recent.action.workflow.workflowId).result()).toEqual({
        purged: { token_blocklist: 0, sessions: 2 },
        unfinished: [],
      });
    }, 30_000);
  });
  expect(await expiredBefore()).toBe(0);
  // The person's own live session stays.
  expect(await t.db.query('select 1 from sessions where user_id = $1', [userId])).toHaveLength(1);
});
