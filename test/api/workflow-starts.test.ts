/**
 * Issue 20, the API's side: "the rows and a pending start commit in one transaction; the API tries the
 * start at once and answers the client either way ... A Temporal outage of a minute then refuses no
 * create". Activations (consumer and company seat), company registration and quote creation keep their
 * rows and a pending start when Temporal refuses or does not answer, and mark it when it takes the start.
 * The relay that makes the pending ones is in test/api/start-relay.test.ts.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { bearer, createTestApp, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeActivationRuns, iccid, seedCatalog } from '../helpers/activations';
import { insertPackage } from '../helpers/catalog';
import { fakeCompanyRuns, registrationBody, signInAs } from '../helpers/company-routes';
import { call, type DetailBody } from '../helpers/quote-api';
import { fakeQuoteRuns } from '../helpers/quote-runs';
import { rosterCaller } from '../helpers/roster';
import { testDataConverter } from '../helpers/temporal';

interface StartRow {
  kind: string;
  workflow_id: string;
  args: Record<string, unknown>;
  attempts: number;
  last_error: string | null;
  started_at: unknown;
  due_now: boolean;
}

const startOf = async (t: TestApp, workflowId: string): Promise<StartRow | undefined> =>
  (
    await t.db.query<StartRow>(
      `select kind, workflow_id, args, attempts, last_error, started_at, next_attempt_at <= now() as due_now
         from workflow_starts where workflow_id = $1`,
      [workflowId],
    )
  )[0];

describe('creates while Temporal refuses every start', () => {
  const activations = fakeActivationRuns();
  let t: TestApp;
  const companies = fakeCompanyRuns(() => t.db);
  const quotes = fakeQuoteRuns(() => t.db);
  companies.start = () => Promise.reject(new Error('Temporal is away'));
  quotes.start = () => Promise.reject(new Error('Temporal is away'));
  activations.state.failStart = true;
  beforeAll(async () => {
    t = await createTestApp({ deps: { activationRuns: activations.runs, companyRuns: companies, quoteRuns: quotes } });
    await seedCatalog(t.db);
  });
  afterAll(() => t.close());

  it('POST /activations answers 201 and keeps its rows with a pending start the relay may make at once', async () => {
    const { token, userId, phone } = await signUp(t);
    const serial = iccid();
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: serial, packageId: DEMO.packages.starter });
    expect(res.status).toBe(201);
    const { activationId, orderId } = res.body as { activationId: string; orderId: string };
    expect(await t.db.query('select status, iccid from activations where id = $1', [activationId])).toEqual([
      { status: 'pending', iccid: serial },
    ]);
    expect(await startOf(t, `activation:${activationId}`)).toEqual({
      kind: 'activation',
      workflow_id: `activation:${activationId}`,
      // Ids and options only: no personal data in the table.
      args: { activationId, userId, orderId, simType: 'physical' },
      attempts: 1,
      last_error: 'Error: Temporal unavailable',
      started_at: null,
      due_now: true,
    });
    expect(JSON.stringify(await startOf(t, `activation:${activationId}`))).not.toContain(phone!.slice(4));
  });

  it('POST /b2b/company answers 201: the company is pending and its run a pending start', async () => {
    const caller = await signInAs(t, 'b2b_admin');
    const res = await request(t.app).post('/b2b/company').set(bearer(caller.token)).send(registrationBody());
    expect(res.status).toBe(201);
    const companyId = (res.body as { data: { company: { id: string; status: string } } }).data.company.id;
    expect(await t.db.query('select status from companies where id = $1', [companyId])).toEqual([{ status: 'pending' }]);
    expect(await startOf(t, `company:${companyId}`)).toMatchObject({
      kind: 'company',
      args: { companyId },
      attempts: 1,
      last_error: 'Error: Temporal is away',
      started_at: null,
    });
  });

  it('POST /b2b/quotes answers 201 with the draft: its run a pending start', async () => {
    const admin = await rosterCaller(t);
    const packageId = await insertPackage(t.db);
    const res = await call<DetailBody>(t, 'post', '/b2b/quotes', { token: admin.token, body: { items: [{ packageId, qty: 3 }] } });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(await t.db.query('select status from quote_versions where id = $1', [id])).toEqual([{ status: 'draft' }]);
    expect(await startOf(t, `quote:${id}`)).toMatchObject({
      kind: 'quote',
      args: { chainRootId: id, companyId: admin.companyId, tip: { versionId: id, version: 1, status: 'draft', companyAuthored: true } },
      attempts: 1,
      started_at: null,
    });
  });
});

/** A Temporal frontend that accepts connections and never answers: a start waits until its deadline. */
async function silentFrontend() {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a start that does not answer', () => {
  const START_DEADLINE_MS = 400;
  let t: TestApp;
  let frontend: Awaited<ReturnType<typeof silentFrontend>>;
  let connection: Connection;
  beforeAll(async () => {
    frontend = await silentFrontend();
    connection = Connection.lazy({ address: frontend.address });
    const client = new Client({ connection, dataConverter: testDataConverter });
    const activationRuns = createActivationRuns(client, loadConfig({ NODE_ENV: 'test' }), { startDeadlineMs: START_DEADLINE_MS });
    t = await createTestApp({ deps: { activationRuns } });
    await seedCatalog(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await connection?.close().catch(() => undefined);
    await frontend?.close();
  });

  // "a start whose deadline expires after the server accepted it deletes the rows of a running run": no more.
  it('answers 201 after its deadline and keeps the rows: the start stays pending (the relay finds the run if it exists)', async () => {
    const { token } = await signUp(t);
    const started = Date.now();
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(START_DEADLINE_MS);
    expect(Date.now() - started).toBeLessThan(START_DEADLINE_MS + 5_000);
    const { activationId } = res.body as { activationId: string };
    expect(await t.db.query('select status from activations where id = $1', [activationId])).toEqual([{ status: 'pending' }]);
    expect(await startOf(t, `activation:${activationId}`)).toMatchObject({
      attempts: 1,
      started_at: null,
      last_error: expect.any(String) as string,
    });
  });
});

describe('a start that Temporal takes', () => {
  const activations = fakeActivationRuns();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ deps: { activationRuns: activations.runs } });
    await seedCatalog(t.db);
  });
  afterAll(() => t.close());

  it('is made by the request and marked started', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
    expect(res.status).toBe(201);
    const { activationId } = res.body as { activationId: string };
    expect(activations.started.map((s) => s.activationId)).toContain(activationId);
    expect(await startOf(t, `activation:${activationId}`)).toMatchObject({
      attempts: 1,
      last_error: null,
      started_at: expect.anything() as unknown,
    });
  });
});
