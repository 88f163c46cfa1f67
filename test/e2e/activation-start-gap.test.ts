/**
 * The start gap, end to end (issues 11 and 20): the compiled API is killed (SIGKILL, by its test-only
 * FAULT_INJECTION hook) after an activation's rows and its pending start commit and before it tries the
 * start. The row is then `pending` with no workflow, holding its serial. The compiled worker's start
 * relay (src/workflow-starts/relay.ts) finds the pending start and starts the workflow:
 *
 * 1. within its cancel deadline: the activation goes on and ends `activated`, paid and verified as usual;
 * 2. past its cancel deadline: the workflow cancels it with its order at once.
 *
 * No worker runs while the crash is set up, so the test can see the stranded row before the relay runs.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { demoIccid } from '../../src/cli/demo';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';

import { CONSENTS, eventually } from '../helpers/app';
import { DEMO } from '../helpers/activations';
import type { TestDatabase } from '../helpers/db';
import { compiledProcesses, exited, freePort, lastCode, mobileCall, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let env: TestWorkflowEnvironment;
let db: TestDatabase;
let common: NodeJS.ProcessEnv;
let apiProcess: ChildProcess | undefined;
let workerProcess: ChildProcess | undefined;
let baseUrl: string;
let messagesFile: string;

/** (Re)starts the API; `fault` switches its crash between commit and start on. */
async function startApi(fault: boolean): Promise<ChildProcess> {
  if (apiProcess) await stopProcess(apiProcess);
  const port = await freePort();
  apiProcess = processes.start('src/main.js', {
    ...common,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(fault ? { FAULT_INJECTION: 'crash-after-activation-commit' } : {}),
  });
  baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200), 30_000);
  return apiProcess;
}

/** (Re)starts the worker, and with it the start relay. */
async function startWorker(): Promise<void> {
  await stopWorker();
  workerProcess = processes.start('worker/main.js', common, 'worker');
}

async function stopWorker(): Promise<void> {
  if (workerProcess) await stopProcess(workerProcess);
  workerProcess = undefined;
}

beforeAll(async () => {
  stack = await openStackFixture('e2e-start-gap');
  ({ env, db, messagesFile, common } = stack);
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

const api = <T = Record<string, unknown>>(method: string, route: string, body?: unknown, token?: string) =>
  mobileCall<T>(baseUrl, method, route, body, token);

async function hasRun(activationId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(activationWorkflowId(activationId)).describe();
    return true;
  } catch {
    return false;
  }
}

const pendingStart = async (activationId: string) =>
  (
    await db.query<{ attempts: number; started_at: Date | null }>(
      'select attempts, started_at from workflow_starts where workflow_id = $1',
      [activationWorkflowId(activationId)],
    )
  )[0];

/**
 * With no worker (so no relay): signs a person up, then creates an activation on an API that dies between
 * the commit and the start. Returns the stranded row (pending, no workflow) and a session on a healthy API.
 */
async function crashBetweenCommitAndStart(phone: string) {
  await stopWorker();
  const faulty = await startApi(true);
  expect((await api('POST', '/auth/register', { phone, name: 'Crash Test', consents: CONSENTS })).status).toBe(201);
  const token = (await api<{ session: { token: string } }>('POST', '/auth/verify-otp', { phone, otp: lastCode(messagesFile, phone) })).body
    .session.token;
  const serial = demoIccid();
  // The connection dies with the process: no answer at all (fetch's error comes from Node's realm, hence the text).
  const answer = await api('POST', '/activations', { iccid: serial, packageId: DEMO.packages.starter }, token).then(
    (res) => `answered ${res.status}`,
    (err: unknown) => String(err),
  );
  expect(answer).toBe('TypeError: fetch failed');
  expect(await exited(faulty)).toBe('SIGKILL');

  const rows = await db.query<{ id: string; order_id: string; status: string }>(
    'select id, order_id, status from activations where iccid = $1',
    [serial],
  );
  expect(rows.map((r) => r.status)).toEqual(['pending']);
  const [{ id: activationId, order_id: orderId }] = rows;
  // Its start committed with the rows; the API died before trying it.
  expect(await pendingStart(activationId)).toEqual({ attempts: 0, started_at: null });
  expect(await hasRun(activationId)).toBe(false);
  await startApi(false);
  // Nothing else rescues it: a second later it is still without a run.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(await hasRun(activationId)).toBe(false);
  return { activationId, orderId, token };
}

it('an API killed between commit and start: the start relay starts the workflow, and the activation ends activated', async () => {
  const { activationId, orderId, token } = await crashBetweenCommitAndStart('+966512340001');

  await startWorker();
  // The relay leaves a new start to its request for API_ATTEMPT_GRACE_SECONDS (10), then makes it.
  await eventually(async () => expect(await hasRun(activationId)).toBe(true), 45_000);
  // The relay marks the start in the transaction that claimed it: the run may be visible a moment before.
  await eventually(async () => expect((await pendingStart(activationId)).started_at).not.toBeNull(), 10_000);

  // From here it is an ordinary activation: identity, then payment, then the handoff.
  expect(
    (await api('POST', `/activations/${activationId}/verify-identity`, { identityType: 'citizen', idNumber: '1098765430' }, token)).status,
  ).toBe(200);
  await eventually(async () => {
    expect((await api<{ status: string }>('GET', `/activations/${activationId}/verify-identity`, undefined, token)).body.status).toBe(
      'completed',
    );
  }, 30_000);
  const paid = await api('POST', '/payments/create-intent', { orderId, method: 'local_debit', idempotencyKey: randomUUID() }, token);
  expect([paid.status, paid.body.status]).toEqual([201, 'completed']);
  expect(await env.client.workflow.getHandle(activationWorkflowId(activationId)).result()).toBe('activated');
  expect((await api<{ status: string }>('GET', `/activations/${activationId}/status`, undefined, token)).body.status).toBe('activated');
});

it('a row stranded past its cancel deadline: the run the relay starts cancels it with its order', async () => {
  const { activationId, orderId, token } = await crashBetweenCommitAndStart('+966512340002');
  // The relay was away for longer than the activation may live.
  await db.query(`update activations set created_at = now() - interval '25 hours' where id = $1`, [activationId]);
  await db.query(`update workflow_starts set created_at = now() - interval '25 hours', next_attempt_at = now() where workflow_id = $1`, [
    activationWorkflowId(activationId),
  ]);

  await startWorker();
  await eventually(async () => expect(await hasRun(activationId)).toBe(true), 30_000);
  expect(await env.client.workflow.getHandle(activationWorkflowId(activationId)).result()).toBe('cancelled');
  expect((await api<{ status: string }>('GET', `/activations/${activationId}/status`, undefined, token)).body.status).toBe('cancelled');
  const [order] = await db.query<{ status: string }>('select status from orders where id = $1', [orderId]);
  expect(order.status).toBe('cancelled');
  // The serial is free again: the person may start over with it.
  const [{ iccid }] = await db.query<{ iccid: string }>('select iccid from activations where id = $1', [activationId]);
  expect((await api('POST', '/activations', { iccid, packageId: DEMO.packages.starter }, token)).status).toBe(201);
});
