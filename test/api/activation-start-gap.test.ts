/**
 * The gap between an activation's commit and its workflow start (issue 11), on the API side: the start
 * has a deadline (then the rows are removed and the create fails, as for any failed start), and a
 * started activation is marked, so the recovery only ever looks at rows whose start nobody saw.
 * The crash itself is proven end to end in test/e2e/activation-recovery.test.ts.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createActivationWorkflows } from '../../src/temporal/activations';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeWorkflows, iccid, seedCatalog } from '../helpers/activations';
import { errorOf } from '../helpers/responses';
import { testDataConverter } from '../helpers/temporal';

const START_DEADLINE_MS = 400;

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
  let t: TestApp;
  let frontend: Awaited<ReturnType<typeof silentFrontend>>;
  let connection: Connection;
  beforeAll(async () => {
    frontend = await silentFrontend();
    connection = Connection.lazy({ address: frontend.address });
    const client = new Client({ connection, dataConverter: testDataConverter });
    const workflows = createActivationWorkflows(client, loadConfig({ NODE_ENV: 'test' }), { startDeadlineMs: START_DEADLINE_MS });
    t = await createTestApp({ deps: { activationWorkflows: workflows } });
    await seedCatalog(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await connection?.close().catch(() => undefined);
    await frontend?.close();
  });

  it('fails the create after its deadline with WORKFLOW_UNAVAILABLE, and removes the rows (the serial is free again)', async () => {
    const { token, userId } = await signUp(t);
    const serial = iccid();
    const started = Date.now();
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: serial, packageId: DEMO.packages.starter });
    expect([res.status, errorCode(res), errorOf(res).details]).toEqual([422, 'ACTIVATION_FAILED', { reason: 'WORKFLOW_UNAVAILABLE' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(START_DEADLINE_MS);
    expect(Date.now() - started).toBeLessThan(START_DEADLINE_MS + 5_000);
    expect(await t.db.query('select 1 from activations where user_id = $1', [userId])).toEqual([]);
    expect(await t.db.query('select 1 from orders where user_id = $1', [userId])).toEqual([]);
    expect(await t.db.query('select 1 from order_items where iccid = $1', [serial])).toEqual([]);
  });
});

describe('a start that succeeds', () => {
  const temporal = fakeWorkflows();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ deps: { activationWorkflows: temporal.workflows } });
    await seedCatalog(t.db);
  });
  afterAll(() => t.close());

  it('marks the row as started, at the time of the start', async () => {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
    expect(res.status).toBe(201);
    const [row] = await t.db.query<{ workflow_started_at: Date | null; created_at: Date }>(
      'select workflow_started_at, created_at from activations where id = $1',
      [(res.body as { activationId: string }).activationId],
    );
    expect(row.workflow_started_at).toEqual(row.created_at);
  });

  it('leaves the row unmarked when the start failed and the rows could not be removed either (the recovery finds it)', async () => {
    const { token, userId } = await signUp(t);
    temporal.state.failStart = true;
    await t.db.query(
      `create or replace function refuse_order_delete() returns trigger language plpgsql as $$ begin raise exception 'database away'; end $$`,
    );
    await t.db.query(`create trigger refuse_order_delete before delete on activations for each row execute function refuse_order_delete()`);
    try {
      const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
      expect(res.status).toBe(500);
    } finally {
      temporal.state.failStart = false;
      await t.db.query('drop trigger refuse_order_delete on activations');
    }
    expect(await t.db.query('select status, workflow_started_at from activations where user_id = $1', [userId])).toEqual([
      { status: 'pending', workflow_started_at: null },
    ]);
  });
});
