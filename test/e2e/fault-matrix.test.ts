/**
 * Issue 32, item 3: the fault matrix on the compiled stack (the API and the worker as real processes,
 * the Temporal dev server, PostgreSQL reached through a loopback TCP proxy the test can cut, the eSIM
 * store's stand-ins with the mock's signed callbacks, and the identity and operator providers over HTTP:
 * compose's local stub behind another proxy the test can freeze). The faults: Temporal stopped, the
 * worker killed, Postgres away, the API killed (SIGKILL) and started again on its port, the providers
 * hanging past their timeouts. Under each fault three kinds of walk start interleaved, 100 ms apart
 * (test/helpers/journeys.ts):
 * - consumer journeys (sign up, activation, verify-identity, card payment);
 * - eSIM store orders, one buyer each (sign up by e-mail, device acknowledgement, order, card payment),
 *   two of three products issued at once and one through the provider's callback;
 * - company seats: a company set up once (approved, prepaid contract funded, staff staged and sent their
 *   links: src/cli/demo-b2b.ts setUpCompany), each seat a link redeemed, the consents, the activation the
 *   company pays, verify-identity.
 * The client repeats a request only when told nothing happened (503 with Retry-After) or no answer came;
 * a lost answer's repeat gets the spec's answer to a repeat and the client recovers (`recovered`); only the
 * hanging providers give the spec's "try again" (`later`).
 * Each fault ends, for each kind, with 0 refused, 0 stuck (every activation `activated`, every order
 * `issued`), 0 paid twice (an order paid twice; a seat charged to the company twice), 0 untrue answers
 * (verify-identity's transaction is the one the activation records; a seat's order is the company-paid
 * one its 201 named; a store payment's 201 names the order's completed payment), for store orders 0 not
 * once (one QR e-mail, one placement per order), and the time from the fault's end to the last
 * activation or order caught up.
 *
 * FAULT_JOURNEYS (default 10), FAULT_STORE_ORDERS (default 10), FAULT_SEATS (default 3) and
 * FAULT_TEMPORAL_DOWN_MS (default 60 s) scale it; FAULT_REPORT_FILE gets the counts as JSON (`npm run
 * bench -- --only faults` runs it with 30 journeys per fault). The store's poll of a pending order runs every 15 s
 * (2 min by default): the mock provider keeps its pending orders and their callbacks in the worker's
 * memory, so a killed worker's callbacks never come and the poll is what finds those orders.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { setUpCompany } from '../../src/cli/demo-b2b';
import { createDemoClient } from '../../src/cli/demo-client';
import { seedStoreStandIns } from '../../src/store/stand-ins';
import { eventually } from '../helpers/app';
import {
  mixedBurst,
  settle,
  settleSeats,
  settleStoreOrders,
  type JourneyOptions,
  type MatrixCounts,
  type MixedWalks,
  type Staff,
} from '../helpers/journeys';
import { compiledProcesses, freePort, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApiProcess, type StackFixture } from '../helpers/stack';
import { productId } from '../helpers/store';
import { startTcpProxy, testDatabaseServer, throughProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(600_000);

const JOURNEYS = Number(process.env.FAULT_JOURNEYS ?? 10);
const STORE_ORDERS = Number(process.env.FAULT_STORE_ORDERS ?? 10);
const SEATS = Number(process.env.FAULT_SEATS ?? 3);
/** The faults below, each taking SEATS staged staff members. */
const FAULTS = 5;
const TEMPORAL_DOWN_MS = Number(process.env.FAULT_TEMPORAL_DOWN_MS ?? 60_000);
const POSTGRES_DOWN_MS = 10_000;
const PROVIDERS_HANG_MS = 15_000;
const GAP_MS = 100;
const CLEAN: Partial<MatrixCounts> = { refused: 0, stuck: 0, paidTwice: 0, untrue: 0, later: 0 };
const CLEAN_KINDS = { consumers: CLEAN, storeOrders: { ...CLEAN, notOnce: 0 }, companySeats: CLEAN };
/** Two of three orders issued at once (across the providers and prices), every third through the provider's callback. */
const SYNC_SKUS = ['MOCK-SYNC-SA-5GB', 'MOCK-SYNC-AE-1GB', 'LITE-SYNC-SA-1GB', 'MOCK-SYNC-GLOBAL-UNL'];
const storeProducts = (n: number) =>
  Array.from({ length: n }, (_, i) => productId(i % 3 === 2 ? 'MOCK-ASYNC-EG-3GB' : SYNC_SKUS[(i - Math.floor(i / 3)) % SYNC_SKUS.length]));

const processes = compiledProcesses(DIST);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let stack: StackFixture;
let proxy: TcpProxy;
let providers: TcpProxy;
let worker: ChildProcess;
let api: ChildProcess;
let baseUrl: string;
/** Staged staff members whose links are not redeemed yet: each fault takes its seats from here. */
let staff: Staff[] = [];
type FaultReport = Record<keyof typeof CLEAN_KINDS, MatrixCounts>;
const report: Record<string, FaultReport> = {};

const options = (): JourneyOptions => ({ baseUrl: () => baseUrl, messagesFile: stack.messagesFile });
const startWorker = () => (worker = processes.start('worker/main.js', stack.common, 'worker'));

/** One fault's burst: the consumer journeys, store orders and company seats interleaved, beside `during`. */
const burstAll = (during?: () => Promise<void>) => {
  const seats = staff.splice(0, SEATS);
  if (seats.length < SEATS) throw new Error(`only ${seats.length} staged staff left: stage more in beforeAll (FAULTS)`);
  return mixedBurst({ consumers: JOURNEYS, storeProducts: storeProducts(STORE_ORDERS), seats }, GAP_MS, options(), during);
};
/** Half-way through a burst's starts: when a mid-burst fault begins. */
const MID_BURST_MS = (GAP_MS * (JOURNEYS + STORE_ORDERS + SEATS)) / 2;

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

async function settleAll(walks: MixedWalks, clearedAt: number): Promise<FaultReport> {
  const [consumers, storeOrders, companySeats] = await Promise.all([
    settle(stack.db.pool, walks.consumers, clearedAt),
    settleStoreOrders(stack.db.pool, stack.env.client, stack.messagesFile, walks.storeOrders, clearedAt),
    settleSeats(stack.db.pool, walks.seats, clearedAt),
  ]);
  return { consumers, storeOrders, companySeats };
}

beforeAll(async () => {
  stack = await openStackFixture('e2e-faults', {
    RATE_LIMIT_MAX: '1000000',
    SIGNAL_RELAY_MAX_BACKOFF_SECONDS: '1',
    START_RELAY_MAX_BACKOFF_SECONDS: '1',
    FEATURE_ESIM_STORE: 'true',
    STORE_ORDER_POLL_EVERY: '15s',
    MESSAGE_RELAY_POLL_SECONDS: '1',
  });
  await stack.db.sql.transaction((tx) => seedStoreStandIns(tx));
  Object.assign(stack.common, await startProviders(stack.messagesFile));
  // The processes reach Postgres through the proxy; the test reads it directly.
  proxy = await startTcpProxy(testDatabaseServer());
  stack.common.DATABASE_URL = throughProxy(proxy, stack.db.name);
  await startApi();
  // The mock store's callbacks come from the worker to the API, as a provider's would.
  stack.common.MOCK_STORE_CALLBACK_URL = `${baseUrl}/webhooks/esim-provider`;
  startWorker();
  await eventually(async () => {
    await stack.env.client.schedule.getHandle('housekeeping-otp').describe();
  }, 60_000);
  const company = await setUpCompany(
    createDemoClient({ baseUrl, messagesFile: stack.messagesFile, log: () => undefined }),
    { databaseUrl: stack.databaseUrl },
    SEATS * FAULTS,
  );
  staff = company.staff.map((s) => ({ ...s, packageId: company.packageId }));
});

afterAll(async () => {
  console.info(
    `fault matrix (per fault: ${JOURNEYS} consumer journeys, ${STORE_ORDERS} store orders, ${SEATS} company seats):\n${JSON.stringify(report, null, 2)}`,
  );
  // The bench's faults phase (bench/faults.ts) reads it.
  if (process.env.FAULT_REPORT_FILE) writeFileSync(process.env.FAULT_REPORT_FILE, JSON.stringify(report, null, 2));
  await processes.stopAll();
  await proxy?.close();
  await providers?.close();
  await stack?.close();
});

it(`Temporal stopped ${TEMPORAL_DOWN_MS / 1000} s: nothing refused, every activation activated and order issued once it is back`, async () => {
  await stack.stopTemporal();
  const stoppedAt = Date.now();
  const walks = await burstAll();
  await sleep(Math.max(0, TEMPORAL_DOWN_MS - (Date.now() - stoppedAt)));
  await stack.startTemporal();
  report.temporalStopped = await settleAll(walks, Date.now());
  expect(report.temporalStopped).toMatchObject(CLEAN_KINDS);
});

it('the worker killed (SIGKILL) mid-burst and started again: nothing refused or lost', async () => {
  let clearedAt = 0;
  const walks = await burstAll(async () => {
    await sleep(MID_BURST_MS);
    await stopProcess(worker, 'SIGKILL');
    await sleep(2_000);
    startWorker();
    clearedAt = Date.now();
  });
  report.workerKilled = await settleAll(walks, clearedAt);
  expect(report.workerKilled).toMatchObject(CLEAN_KINDS);
});

it(`Postgres away ${POSTGRES_DOWN_MS / 1000} s: 503 with Retry-After while it is, nothing half-written, every activation activated after`, async () => {
  let clearedAt = 0;
  const walks = await burstAll(async () => {
    await sleep(MID_BURST_MS);
    await proxy.cut();
    await sleep(POSTGRES_DOWN_MS);
    await proxy.restore();
    clearedAt = Date.now();
  });
  report.postgresAway = await settleAll(walks, clearedAt);
  expect(report.postgresAway).toMatchObject(CLEAN_KINDS);
  // The clients were told to wait, and waited: that is the fault showing, not a refusal.
  expect(Object.values(report.postgresAway).reduce((n, counts) => n + counts.waited, 0)).toBeGreaterThan(0);
});

it('the API killed (SIGKILL) mid-burst and started again: lost answers recovered, nothing refused or lost', async () => {
  let clearedAt = 0;
  const port = Number(new URL(baseUrl).port);
  const walks = await burstAll(async () => {
    await sleep(MID_BURST_MS);
    await stopProcess(api, 'SIGKILL');
    await sleep(2_000);
    await startApi(port);
    clearedAt = Date.now();
  });
  report.apiKilled = await settleAll(walks, clearedAt);
  expect(report.apiKilled).toMatchObject(CLEAN_KINDS);
  // Requests were in flight or refused while it was down: the clients saw the fault.
  expect(Object.values(report.apiKilled).reduce((n, counts) => n + counts.waited, 0)).toBeGreaterThan(0);
});

it(`the identity and operator providers hanging ${PROVIDERS_HANG_MS / 1000} s: only the spec's "try again", every activation activated after`, async () => {
  let clearedAt = 0;
  const walks = await burstAll(async () => {
    await sleep(MID_BURST_MS);
    providers.freeze();
    await sleep(PROVIDERS_HANG_MS);
    await providers.restore();
    clearedAt = Date.now();
  });
  report.providersHanging = await settleAll(walks, clearedAt);
  const later = (kind: keyof FaultReport) => ({ later: report.providersHanging[kind].later });
  expect(report.providersHanging).toMatchObject({
    consumers: { ...CLEAN, ...later('consumers') },
    storeOrders: { ...CLEAN, notOnce: 0, ...later('storeOrders') },
    companySeats: { ...CLEAN, ...later('companySeats') },
  });
  expect(Object.values(report.providersHanging).reduce((n, counts) => n + counts.later, 0)).toBeGreaterThan(0);
});
