/**
 * End to end on the running stack: the compiled API and worker as real
 * processes, the Temporal dev server, PostgreSQL. One consumer goes from
 * register to `activated`, everything read over HTTP; the only shortcut is the
 * test-only "order paid" signal, which the payments issue will send for real.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES, activationWorkflowId } from '../../src/temporal/activations';
import { orderPaidSignal } from '../../workflows/activation';
import { CONSENTS, eventually } from '../helpers/app';
import { DEMO, iccid, seedCatalog } from '../helpers/activations';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { createLocalEnv, REPO_ROOT, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(120_000);

const DIST = path.join(REPO_ROOT, 'dist');
let env: TestWorkflowEnvironment;
let db: TestDatabase;
const children: ChildProcess[] = [];
let baseUrl: string;
let messagesFile: string;
let tmp: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function start(script: string, environment: NodeJS.ProcessEnv, name: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(DIST, script)], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  child.on('exit', (code) => {
    if (code && code !== 0) console.error(`${name} exited ${code}:\n${output.slice(-4000)}`);
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  if (!existsSync(path.join(DIST, 'src/main.js'))) throw new Error('dist/ is missing: run `npm test` (it compiles first)');
  [env, db] = await Promise.all([createLocalEnv({ server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } }), createTestDatabase(5)]);
  await seedCatalog(db);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'activation-e2e-'));
  messagesFile = path.join(tmp, 'messages.jsonl');
  const port = await freePort();
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${db.name}`;
  const common = {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.toString(),
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('e2e'),
    MESSAGES_FILE: messagesFile,
    MOCK_IDENTITY_DELAY_MS: '300',
    IDENTITY_POLL_INTERVAL_SECONDS: '1',
  };
  start('worker/main.js', common, 'worker');
  start('src/main.js', { ...common, PORT: String(port), HOST: '127.0.0.1' }, 'api');
  baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200), 30_000);
});

afterAll(async () => {
  await Promise.all(
    children.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })),
  );
  await env?.teardown();
  await db?.drop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function api(method: string, route: string, body?: unknown, token?: string) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-type': 'mobile', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function lastCode(to: string): string {
  const lines = readFileSync(messagesFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const text: string = lines.reverse().find((m) => m.to === to).text;
  return /\b(\d{6})\b/.exec(text)![1]!;
}

it('takes a consumer from register to an activated SIM', async () => {
  const phone = '+966512345678';
  expect((await api('POST', '/auth/register', { phone, name: 'End To End', consents: CONSENTS })).status).toBe(201);
  const signIn = await api('POST', '/auth/verify-otp', { phone, otp: lastCode(phone) });
  expect(signIn.status).toBe(200);
  const token = signIn.body.session.token as string;

  const serial = iccid();
  expect((await api('POST', '/activations/validate-iccid', { iccid: serial })).body.valid).toBe(true);
  const created = await api('POST', '/activations', { iccid: serial, packageId: DEMO.packages.starter }, token);
  expect(created.status).toBe(201);
  const { activationId, orderId } = created.body;

  const verification = await api('POST', `/activations/${activationId}/verify-identity`, { identityType: 'citizen', idNumber: '1098765430' }, token);
  expect(verification).toEqual({ status: 200, body: { transId: expect.any(String), randomCode: expect.any(String), status: 'waiting' } });
  await eventually(async () => {
    expect((await api('GET', `/activations/${activationId}/verify-identity`, undefined, token)).body).toEqual({ status: 'completed', verifiedAt: expect.any(String) });
  }, 30_000);
  expect((await api('GET', `/activations/${activationId}/status`, undefined, token)).body).toMatchObject({ status: 'pending', identityStatus: 'completed' });

  // Test-only: the payments issue sends this signal when the order is paid.
  await env.client.workflow.getHandle(activationWorkflowId(activationId)).signal(orderPaidSignal, { paymentId: 'e2e-payment' });

  await eventually(async () => {
    const status = await api('GET', `/activations/${activationId}/status`, undefined, token);
    expect(status.body).toMatchObject({ id: activationId, status: 'activated', identityStatus: 'completed', estimatedActivationSeconds: 0 });
  }, 30_000);
  const history = await api('GET', '/activations/history', undefined, token);
  expect(history.body.items).toEqual([expect.objectContaining({ activationId, status: 'activated', packageNameEn: 'Starter 5 GB' })]);

  // Operators find the run in the Temporal UI by its business keys.
  await eventually(async () => {
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `ActivationId = "${activationId}" AND OrderId = "${orderId}" AND ActivationStatus = "activated"` })) runs.push(run);
    expect(runs.map((r) => r.workflowId)).toEqual([activationWorkflowId(activationId)]);
  }, 15_000);
});
