/**
 * The retention erasure (esim-store spec "Account deletion and compliance": a retention Schedule erases
 * personal data past retainUntil), the workflow its schedule starts, with the real activities on a real
 * database, on the time-skipping server: days pass in the test's time, and exactly the accounts whose
 * retainUntil is before the run's time are erased.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { retentionWorkflow } from '../../workflows/retention';
import type { RetentionInput } from '../../workflows/contracts/retention-contract';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, newPhone, signUp, type TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { bundleWorkflows, createTimeSkippingEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

const DAY = 24 * 3600_000;

let env: TestWorkflowEnvironment;
let t: TestApp;
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
  taskQueue = uniqueTaskQueue('retention');
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

/**
 * The server's time. It jumps ahead (years) whenever a test waits for a result with nothing scheduled,
 * so every retainUntil below is set from the time read just before the run that decides on it.
 */
const serverNow = async () => Number(await env.currentTimeMs());

/** A person who asked for deletion through the route, whose retainUntil is then set `days` from the server's now. */
async function deletedPerson(days: number) {
  const phone = newPhone();
  const person = await signUp(t, { phone, name: `Retained ${randomUUID().slice(0, 8)}` });
  expect((await request(t.app).post('/auth/me/deletion-request').set(bearer(person.token))).status).toBe(202);
  await retainFor(person.userId, days);
  return { ...person, phone };
}

const retainFor = async (userId: string, days: number) =>
  t.db.query('update users set retain_until = $2 where id = $1', [userId, new Date((await serverNow()) + days * DAY)]);

const state = async (userId: string) =>
  (
    await t.db.query<{ name: string; erased: boolean; phone: boolean }>(
      `select name, erased_at is not null as erased, retained_phone_encrypted is not null as phone from users where id = $1`,
      [userId],
    )
  )[0];

const run = (input: RetentionInput) =>
  env.client.workflow.execute(retentionWorkflow, { taskQueue, workflowId: `retention-test-${randomUUID()}`, args: [input] });

it('erases exactly the accounts whose retainUntil is before the run, and audits each as the retention', async () => {
  const past = await deletedPerson(-1);
  const justPast = await deletedPerson(-1 / (24 * 60));
  const tomorrow = await deletedPerson(1);
  const nextMonth = await deletedPerson(30);

  const result = await run({ batchSize: 10, maxBatches: 5 });
  expect([result.erased, result.unfinished]).toEqual([2, false]);
  for (const person of [past, justPast]) expect(await state(person.userId)).toEqual({ name: '', erased: true, phone: false });
  for (const person of [tomorrow, nextMonth]) {
    expect(await state(person.userId)).toEqual({ name: expect.stringMatching(/^Retained /) as unknown, erased: false, phone: true });
  }
  const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
  const hashes = await t.db.query('select 1 from otp_requests where identifier_hash = any($1::text[])', [
    [past.phone, justPast.phone].map((p) => cipher.lookupHash(p)),
  ]);
  expect(hashes).toEqual([]);
  const audits = await t.db.query<{ entity_id: string; actor_user_id: string | null; details: Record<string, unknown> }>(
    `select entity_id, actor_user_id, details from audit_events where action = 'compliance.user_erased'`,
  );
  expect(audits.map((a) => a.entity_id).sort()).toEqual([past.userId, justPast.userId].sort());
  expect(audits.every((a) => a.actor_user_id === null && a.details.trigger === 'retention')).toBe(true);
  // Kept for the next tests: they are erased once their day passes.
  await t.db.query('update users set retain_until = null where id = any($1::uuid[])', [[tomorrow.userId, nextMonth.userId]]);
});

it('erases an account once the days up to its retainUntil have passed', async () => {
  const person = await deletedPerson(1);
  await env.sleep(DAY / 2);
  expect((await run({ batchSize: 10, maxBatches: 5 })).erased).toBe(0);
  expect(await state(person.userId)).toMatchObject({ erased: false });
  await retainFor(person.userId, 1);
  await env.sleep(DAY + 60_000);
  expect((await run({ batchSize: 10, maxBatches: 5 })).erased).toBe(1);
  expect(await state(person.userId)).toMatchObject({ erased: true });
});

it('works in batches and leaves what maxBatches did not reach for the next run', async () => {
  const people = [await deletedPerson(-3), await deletedPerson(-2), await deletedPerson(-1)];
  expect(await run({ batchSize: 1, maxBatches: 2 })).toMatchObject({ erased: 2, unfinished: true });
  expect(await run({ batchSize: 1, maxBatches: 2 })).toMatchObject({ erased: 1, unfinished: false });
  for (const person of people) expect(await state(person.userId)).toMatchObject({ erased: true });
});
