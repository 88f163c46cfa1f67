/**
 * Issue 32, item 3: the fault matrix on the compiled stack (the API and the worker as real processes,
 * the Temporal dev server, PostgreSQL reached through a loopback TCP proxy the test can cut, and the
 * identity and operator providers over HTTP: compose's local stub behind another proxy the test can
 * freeze). Consumer journeys (sign up, activation, verify-identity, card payment) start 100 ms apart
 * under each fault: Temporal stopped, the worker killed, Postgres away, the API killed (SIGKILL) and
 * started again, the providers hanging past their timeouts. The client repeats a request only when told
 * nothing happened (503 with Retry-After) or no answer came (see test/helpers/journeys.ts).
 * Each fault ends with 0 refused, 0 stuck (every activation `activated`), 0 paid twice, 0 untrue
 * answers (verify-identity's transaction is the one the activation records), and the time from the
 * fault's end to the last activation caught up; only the hanging providers give the spec's "try
 * again" answers (`later`).
 *
 * FAULT_JOURNEYS (default 10) and FAULT_TEMPORAL_DOWN_MS (default 60 s) scale it; FAULT_REPORT_FILE
 * gets the counts as JSON (`npm run bench -- --only faults` runs it with 30 journeys per fault).
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { eventually } from '../helpers/app';
import { burst, settle, type JourneyOptions, type MatrixCounts } from '../helpers/journeys';
import { compiledProcesses, freePort, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApiProcess, type StackFixture } from '../helpers/stack';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(600_000);

const JOURNEYS = Number(process.env.FAULT_JOURNEYS ?? 10);
const TEMPORAL_DOWN_MS = Number(process.env.FAULT_TEMPORAL_DOWN_MS ?? 60_000);
const POSTGRES_DOWN_MS = 10_000;
const PROVIDERS_HANG_MS = 15_000;
const GAP_MS = 100;
const CLEAN: Partial<MatrixCounts> = { refused: 0, stuck: 0, paidTwice: 0, untrue: 0, later: 0 };

const processes = compiledProcesses(DIST);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let stack: StackFixture;
let proxy: TcpProxy;
let providers: TcpProxy;
let worker: ChildProcess;
let api: ChildProcess;
let baseUrl: string;
const report: Record<string, MatrixCounts> = {};

const options = (): JourneyOptions => ({ baseUrl: () => baseUrl, messagesFile: stack.messagesFile });
const startWorker = () => (worker = processes.start('worker/main.js', stack.common, 'worker'));

/** compose's local stub as the identity provider and the operators, reached through a proxy that can freeze. */
async function startProviders(messagesFile: string): Promise<NodeJS.ProcessEnv> {
  const port = await freePort();
  processes.start(
    '../compose/local-stub.mjs',
    { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', MESSAGES_FILE: `${messagesFile}.stub`, IDENTITY_DELAY_MS: '300' },
    'providers',
  );
  providers = await startTcpProxy({ host: '127.0.0.1', port });
  await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200), 10_000);
  const base = `http://127.0.0.1:${providers.port}`;
  return {
    IDENTITY_PROVIDER: 'http',
    IDENTITY_HTTP_URL: `${base}/identity`,
    IDENTITY_HTTP_TOKEN: 'local',
    IDENTITY_HTTP_TIMEOUT_MS: '2000',
    OPERATOR_PROVIDER: 'http',
    OPERATOR_HTTP_ENDPOINTS: `mock=${base}/operators/mock`,
    OPERATOR_HTTP_TOKEN: 'local',
    OPERATOR_HTTP_TIMEOUT_MS: '3000',
  };
}

async function startApi(port?: number): Promise<void> {
  ({ baseUrl, api } = await startApiProcess(stack, processes, port));
}

beforeAll(async () => {
  stack = await openStackFixture('e2e-faults', {
    RATE_LIMIT_MAX: '1000000',
    SIGNAL_RELAY_MAX_BACKOFF_SECONDS: '1',
    START_RELAY_MAX_BACKOFF_SECONDS: '1',
  });
  Object.assign(stack.common, await startProviders(stack.messagesFile));
  // The processes reach Postgres through the proxy; the test reads it directly.
  proxy = await startTcpProxy(testDatabaseServer());
  stack.common.DATABASE_URL = throughProxy(proxy, stack.db.name);
  startWorker();
  await startApi();
  await eventually(async () => {
    await stack.env.client.schedule.getHandle('housekeeping-otp').describe();
  }, 60_000);
});

afterAll(async () => {
  console.info(`fault matrix (${JOURNEYS} journeys per fault):\n${JSON.stringify(report, null, 2)}`);
  // The bench's faults phase (bench/faults.ts) reads it.
  if (process.env.FAULT_REPORT_FILE) writeFileSync(process.env.FAULT_REPORT_FILE, JSON.stringify(report, null, 2));
  await processes.stopAll();
  await proxy?.close();
  await providers?.close();
  await stack?.close();
});

it(`Temporal stopped ${TEMPORAL_DOWN_MS / 1000} s: nothing refused, every activation activated once it is back`, async () => {
  await stack.stopTemporal();
  const stoppedAt = Date.now();
  const journeys = await burst(JOURNEYS, GAP_MS, options());
  await sleep(Math.max(0, TEMPORAL_DOWN_MS - (Date.now() - stoppedAt)));
  await stack.startTemporal();
  report.temporalStopped = await settle(stack.db.pool, journeys, Date.now());
  expect(report.temporalStopped).toMatchObject(CLEAN);
});

it('the worker killed (SIGKILL) mid-burst and started again: nothing refused or lost', async () => {
  let clearedAt = 0;
  const journeys = await burst(JOURNEYS, GAP_MS, options(), async () => {
    await sleep(GAP_MS * (JOURNEYS / 2));
    await stopProcess(worker, 'SIGKILL');
    await sleep(2_000);
    startWorker();
    clearedAt = Date.now();
  });
  report.workerKilled = await settle(stack.db.pool, journeys, clearedAt);
  expect(report.workerKilled).toMatchObject(CLEAN);
});

it(`Postgres away ${POSTGRES_DOWN_MS / 1000} s: 503 with Retry-After while it is, nothing half-written, every activation activated after`, async () => {
  let clearedAt = 0;
  const journeys = await burst(JOURNEYS, GAP_MS, options(), async () => {
    await sleep(GAP_MS * (JOURNEYS / 2));
    await proxy.cut();
    await sleep(POSTGRES_DOWN_MS);
    await proxy.restore();
    clearedAt = Date.now();
  });
  report.postgresAway = await settle(stack.db.pool, journeys, clearedAt);
  expect(report.postgresAway).toMatchObject(CLEAN);
  // The clients were told to wait, and waited: that is the fault showing, not a refusal.
  expect(report.postgresAway.waited).toBeGreaterThan(0);
});

it('the API killed (SIGKILL) mid-burst and started again: lost answers recovered, nothing refused or lost', async () => {
  let clearedAt = 0;
  const port = Number(new URL(baseUrl).port);
  const journeys = await burst(JOURNEYS, GAP_MS, options(), async () => {
    await sleep(GAP_MS * (JOURNEYS / 2));
    await stopProcess(api, 'SIGKILL');
    await sleep(2_000);
    await startApi(port);
    clearedAt = Date.now();
  });
  report.apiKilled = await settle(stack.db.pool, journeys, clearedAt);
  expect(report.apiKilled).toMatchObject(CLEAN);
  // Requests were in flight or refused while it was down: the clients saw the fault.
  expect(report.apiKilled.waited).toBeGreaterThan(0);
});

it(`the identity and operator providers hanging ${PROVIDERS_HANG_MS / 1000} s: only the spec's "try again", every activation activated after`, async () => {
  let clearedAt = 0;
  const journeys = await burst(JOURNEYS, GAP_MS, options(), async () => {
    await sleep(GAP_MS * (JOURNEYS / 2));
    providers.freeze();
    await sleep(PROVIDERS_HANG_MS);
    await providers.restore();
    clearedAt = Date.now();
  });
  report.providersHanging = await settle(stack.db.pool, journeys, clearedAt);
  expect(report.providersHanging).toMatchObject({ ...CLEAN, later: report.providersHanging.later });
  expect(report.providersHanging.later).toBeGreaterThan(0);
});
