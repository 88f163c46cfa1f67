/**
 * The housekeeping workflow with the real activities on a real database (time-skipping server):
 * it works off each target in batches until one comes back short, and stops at maxBatches,
 * leaving the rest for the next run.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import type { HousekeepingInput } from '../../workflows/contracts/housekeeping-contract';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

const DAY = 24 * 3600_000;

let env: TestWorkflowEnvironment;
let t: TestApp;
let userId: string;
let worker: Worker;
let running: Promise<void>;
let taskQueue: string;

beforeAll(async () => {
  const [e, bundle, app] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('../../workflows')),
    createTestApp(),
  ]);
  [env, t] = [e, app];
  userId = (await signUp(t)).userId;
  taskQueue = uniqueTaskQueue('housekeeping');
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: testDataConverter,
    activities: realActivities(t.db, t.config, { clock: t.clock }),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await t?.close();
});
beforeEach(async () => {
  await t.db.query('delete from sessions');
  await t.db.query('delete from token_blocklist');
});

const at = (msFromNow: number) => new Date(t.clock().getTime() + msFromNow);

async function sessions(count: number, expiresAt: Date): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.db.query(`insert into sessions (id, user_id, client_type, expires_at, created_at) values ($1, $2, 'web', $3, $4)`, [
      randomUUID(),
      userId,
      expiresAt,
      at(-30 * DAY),
    ]);
  }
}

async function blocklistedTokens(count: number, expiresAt: Date): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.db.query(`insert into token_blocklist (token_hash, expires_at, created_at) values ($1, $2, $3)`, [
      randomUUID().replace(/-/g, '').padEnd(64, '0'),
      expiresAt,
      at(-30 * DAY),
    ]);
  }
}

const run = (input: HousekeepingInput) =>
  env.client.workflow.execute(housekeepingWorkflow, { taskQueue, workflowId: `housekeeping-test-${randomUUID()}`, args: [input] });
const count = async (table: string) => Number((await t.db.query<{ n: string }>(`select count(*) as n from ${table}`))[0].n);

it('purges every target in order, batch after batch, and keeps what is not past its life', async () => {
  await sessions(5, at(-DAY));
  await sessions(2, at(DAY));
  await blocklistedTokens(3, at(-DAY));
  await blocklistedTokens(1, at(DAY));

  const result = await run({
    purges: [
      { target: 'token_blocklist', keepMs: 60_000 },
      { target: 'sessions', keepMs: 60_000 },
    ],
    batchSize: 2,
    maxBatches: 10,
  });

  expect(result).toEqual({ purged: { token_blocklist: 3, sessions: 5 }, unfinished: [] });
  expect([await count('sessions'), await count('token_blocklist')]).toEqual([2, 1]);
});

it('stops a target at maxBatches and names it unfinished; the next run takes the rest', async () => {
  await sessions(7, at(-DAY));
  const input: HousekeepingInput = { purges: [{ target: 'sessions', keepMs: 0 }], batchSize: 2, maxBatches: 3 };

  expect(await run(input)).toEqual({ purged: { sessions: 6 }, unfinished: ['sessions'] });
  expect(await count('sessions')).toBe(1);
  expect(await run(input)).toEqual({ purged: { sessions: 1 }, unfinished: [] });
  expect(await run(input)).toEqual({ purged: { sessions: 0 }, unfinished: [] });
});
