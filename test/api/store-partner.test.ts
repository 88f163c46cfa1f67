/**
 * The real store partner behind the API (issue 33): the HTTP plugin (src/store/providers/http.ts) is
 * registered under the seeded `mock-store` row and talks to a loopback stub that counts every call.
 * Item 1: POST /store/orders's live health check is shared per provider for
 * STORE_HEALTH_CHECK_CACHE_SECONDS (default 5), so a signed-in caller cannot multiply partner calls.
 * Item 2: the partner's own signed callbacks (HMAC-SHA512 of the raw body in `partner-signature`) reach
 * POST /webhooks/esim-provider and signal the order's run, as the spec's callbacks do.
 */
import { createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import { createHttpStoreProvider } from '../../src/store/providers/http';
import { StoreProviderRegistry } from '../../src/store/providers/plugin';
import type { StoreOrderRuns } from '../../src/store/runs';
import type { SignalSender } from '../../src/workflow-signals/kinds';
import { bearer, errorCode, eventually, signUp, type TestApp } from '../helpers/app';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';
import { typed } from '../helpers/responses';
import { createStoreApp, productId } from '../helpers/store';
import { esimCallback } from '../helpers/webhooks';

const SECRET = 'partner-secret-never-logged';
const noRuns: StoreOrderRuns = { start: () => Promise.resolve() };
/** The order runs that heard a provider callback (the signal road's sends, at once). */
const signalled: string[] = [];
const signals: SignalSender = ({ workflowId, signal }) => {
  if (signal === 'providerCallback') signalled.push(workflowId.replace(/^store-order:/, ''));
  return Promise.resolve('signalled');
};

let stub: HttpStub;
let t: TestApp;
let buyer: { token: string; userId: string };
let ackId: string;
/** Whether the partner's package list answers (the health check reads its first page). */
let partnerUp = true;

beforeAll(async () => {
  stub = await startHttpStub();
  stub.answer((req, index) => {
    if (req.path === '/partner/v2/token') return { status: 200, body: { data: { access_token: `tok-${index}`, expires_in: 3600 } } };
    return partnerUp ? { status: 200, body: { data: [], meta: { last_page: 1 } } } : { status: 503 };
  });
  const partner = createHttpStoreProvider({
    slug: 'mock-store',
    baseUrl: `${stub.url}/partner`,
    clientId: 'client-1',
    clientSecret: SECRET,
    // No retries, so each check is one call to count; a generous timeout, so a loaded machine fails nothing.
    timeoutMs: 10_000,
    retries: 0,
  });
  t = await createStoreApp({
    deps: { storeOrderRuns: noRuns, signalSender: signals, storeProviders: new StoreProviderRegistry([partner]) },
  });
  buyer = await signUp(t);
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(buyer.token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  ackId = typed<{ data: { id: string } }>(ack).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

type Created = { data: { id: string; status: string } };
const order = async (sku = 'MOCK-SYNC-SA-5GB') =>
  typed<Created>(
    await request(t.app)
      .post('/store/orders')
      .set(bearer(buyer.token))
      .send({ productId: productId(sku), deviceAcknowledgementId: ackId }),
  );
const calls = (path: string) => stub.requests.filter((r) => r.path.startsWith(path)).length;
const tokenCalls = () => calls('/partner/v2/token');
const packageCalls = () => calls('/partner/v2/packages');

describe('POST /store/orders: one live health check per provider and window', () => {
  it('answers parallel and back-to-back orders with one partner check for 5 s, then checks again with the same token', async () => {
    const [tokensBefore, packagesBefore] = [tokenCalls(), packageCalls()];
    const parallel = await Promise.all(Array.from({ length: 8 }, () => order()));
    expect(parallel.map((r) => r.status)).toEqual(Array(8).fill(201));
    for (let i = 0; i < 3; i += 1) expect((await order()).status).toBe(201);
    t.clock.advance(4_900);
    expect((await order()).status).toBe(201);
    expect([tokenCalls() - tokensBefore, packageCalls() - packagesBefore]).toEqual([1, 1]);

    t.clock.advance(100);
    expect((await order()).status).toBe(201);
    // The window is over: one more package call, with the token the first check took (still valid).
    expect([tokenCalls() - tokensBefore, packageCalls() - packagesBefore]).toEqual([1, 2]);
    expect(new Set(stub.requests.filter((r) => r.path.startsWith('/partner/v2/packages')).map((r) => r.headers.authorization)).size).toBe(
      1,
    );
  });

  it('keeps a failed check for a second only: orders meanwhile are refused without a partner call, then it checks again', async () => {
    t.clock.advance(10_000);
    partnerUp = false;
    const before = packageCalls();
    const refused = await Promise.all(Array.from({ length: 4 }, () => order()));
    expect(refused.map((r) => [r.status, (r.body as unknown as { error: { code: string } }).error.code])).toEqual(
      Array(4).fill([422, 'STORE_PROVIDER_UNAVAILABLE']),
    );
    expect(packageCalls() - before).toBe(1);

    partnerUp = true;
    t.clock.advance(999);
    expect((await order()).status).toBe(422);
    expect(packageCalls() - before).toBe(1);
    t.clock.advance(1);
    expect((await order()).status).toBe(201);
    expect(packageCalls() - before).toBe(2);
  });
});

describe('POST /webhooks/esim-provider: the partner’s own signed callbacks', () => {
  const SIM = { iccid: '8997000000000000017', lpa: 'smdp.partner.example', matching_id: 'SECRET-MATCHING-ID', qrcode: 'LPA:1$x$y' };
  /** The partner's async-order callback: its order answer (naming our order in `description`) and the request id. */
  const partnerBody = (orderId: string, status = 'completed') =>
    JSON.stringify({ data: { id: 77, description: orderId, status, sims: status === 'completed' ? [SIM] : [] }, request_id: 'req-1' });
  const sign = (raw: string, secret = SECRET) => createHmac('sha512', secret).update(raw).digest('hex');
  const deliver = (raw: string, signature: string | undefined = sign(raw)) => {
    const req = request(t.app).post('/webhooks/esim-provider').set('Content-Type', 'application/json');
    return (signature === undefined ? req : req.set('partner-signature', signature)).send(raw);
  };
  const receipts = (orderId: string) =>
    t.db.query<{ event_id: string; outcome: string; detail: Record<string, unknown> }>(
      `select event_id, outcome, detail from webhook_events where provider = 'esim_provider' and event_id like $1 order by event_id`,
      [`${orderId}:%`],
    );
  /** An open order whose run is started (the create starts it after its answer; a signal before that waits for it). */
  const openOrder = async () => {
    const id = (await order()).body.data.id;
    await eventually(async () => {
      const rows = await t.db.query(`select 1 from workflow_starts where workflow_id = $1 and started_at is not null`, [
        `store-order:${id}`,
      ]);
      expect(rows).toHaveLength(1);
    });
    return id;
  };
  beforeEach(() => {
    signalled.length = 0;
  });

  it('verifies the raw body, keeps a minimal receipt and signals the order’s run; the profile in the body is never stored', async () => {
    const id = await openOrder();
    const raw = partnerBody(id);
    const res = await deliver(raw);
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(signalled).toEqual([id]);
    expect(await receipts(id)).toEqual([
      { event_id: `${id}:completed`, outcome: 'enqueued', detail: { orderId: id, providerName: 'mock-store', status: 'completed' } },
    ]);
    const everything = JSON.stringify(await t.db.query('select * from webhook_events')) + t.logLines.join('\n');
    expect(everything).not.toContain('SECRET-MATCHING-ID');

    // The partner redelivers: acknowledged as a duplicate, nothing signalled again.
    expect((await deliver(raw)).body).toEqual({ received: true, duplicate: true });
    expect(signalled).toEqual([id]);
  });

  it('takes the partner’s failed order as a hint only: the run is signalled to read the order', async () => {
    const id = await openOrder();
    expect((await deliver(partnerBody(id, 'failed'))).status).toBe(200);
    expect(signalled).toEqual([id]);
    expect((await receipts(id)).map((r) => r.event_id)).toEqual([`${id}:failed`]);
  });

  it('refuses a body signed with another secret, a changed body or a malformed signature (WEBHOOK_SIGNATURE_INVALID)', async () => {
    const id = await openOrder();
    const raw = partnerBody(id);
    for (const [body, signature] of [
      [raw, sign(raw, 'another-secret')],
      [raw.replace('"status":"completed"', '"status":"failed"'), sign(raw)],
      [raw, 'not-hex'],
      [raw, sign(raw).slice(0, 64)],
    ]) {
      const res = await deliver(body, signature);
      expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    }
    const empty = await deliver(raw, '');
    expect([empty.status, errorCode(empty)]).toEqual([400, 'WEBHOOK_SIGNATURE_MISSING']);
    expect(signalled).toEqual([]);
    expect(await receipts(id)).toEqual([]);
  });

  it('answers VALIDATION_ERROR for a signed body that names no order or is not JSON', async () => {
    for (const raw of [JSON.stringify({ data: { status: 'completed' }, request_id: 'req-2' }), '{nope']) {
      const res = await deliver(raw);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect(signalled).toEqual([]);
  });

  it('acknowledges a signed callback for an order we do not know, kept as a receipt', async () => {
    const unknown = randomUUID();
    expect((await deliver(partnerBody(unknown))).body).toEqual({ received: true });
    expect((await receipts(unknown)).map((r) => r.outcome)).toEqual(['unknown_order']);
    expect(signalled).toEqual([]);
  });

  it('still takes the spec’s RSA-signed callbacks, which carry no partner header', async () => {
    const id = await openOrder();
    const res = await request(t.app).post('/webhooks/esim-provider').send(esimCallback(id));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(signalled).toEqual([id]);
  });
});
