/**
 * Issue 32, item 3: the fault matrix on the compiled stack (the API and the worker as real processes,
 * the Temporal dev server, PostgreSQL reached through a loopback TCP proxy the test can cut). Consumer
 * journeys (sign up, activation, verify-identity, card payment) start 100 ms apart under each fault;
 * the client repeats a request only when told nothing happened (503 with Retry-After) or no answer came.
 * Each fault ends with 0 refused, 0 stuck (every activation `activated`), 0 paid twice, 0 untrue
 * answers (verify-identity's transaction is the one the activation records), and the time from the
 * fault's end to the last activation caught up.
 *
 * FAULT_JOURNEYS (default 10) and FAULT_TEMPORAL_DOWN_MS (default 60 s) scale it.
 */
import type { ChildProcess } from 'node:child_process';
import { eventually } from '../helpers/app';
import { burst, settle, type JourneyOptions, type MatrixCounts } from '../helpers/journeys';
import { compiledProcesses, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApi, type StackFixture } from '../helpers/stack';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(600_000);

const JOURNEYS = Number(process.env.FAULT_JOURNEYS ?? 10);
const TEMPORAL_DOWN_MS = Number(process.env.FAULT_TEMPORAL_DOWN_MS ?? 60_000);
const POSTGRES_DOWN_MS = 10_000;
const GAP_MS = 100;
const CLEAN: Partial<MatrixCounts> = { refused: 0, stuck: 0, paidTwice: 0, untrue: 0 };

const processes = compiledProcesses(DIST);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let stack: StackFixture;
let proxy: TcpProxy;
let worker: ChildProcess;
let baseUrl: string;
const report: Record<string, MatrixCounts> = {};

const options = (): JourneyOptions => ({ baseUrl: () => baseUrl, messagesFile: stack.messagesFile });
const startWorker = () => (worker = processes.start('worker/main.js', stack.common, 'worker'));

beforeAll(async () => {
  stack = await openStackFixture('e2e-faults', {
    RATE_LIMIT_MAX: '1000000',
    SIGNAL_RELAY_MAX_BACKOFF_SECONDS: '1',
    START_RELAY_MAX_BACKOFF_SECONDS: '1',
  });
  // The processes reach Postgres through the proxy; the test reads it directly.
  proxy = await startTcpProxy(testDatabaseServer());
  stack.common.DATABASE_URL = throughProxy(proxy, stack.db.name);
  startWorker();
  baseUrl = await startApi(stack, processes);
  await eventually(async () => {
    await stack.env.client.schedule.getHandle('housekeeping-otp').describe();
  }, 60_000);
});

afterAll(async () => {
  console.info(`fault matrix (${JOURNEYS} journeys per fault):\n${JSON.stringify(report, null, 2)}`);
  await processes.stopAll();
  await proxy?.close();
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
