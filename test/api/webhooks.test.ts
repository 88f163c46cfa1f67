import request from 'supertest';
import { generateKeyPairSync } from 'node:crypto';
import { buildDocument } from '../../src/openapi/registry';
import type { FieldIssue } from '../../src/http/errors';
import { errorCode, eventually, logEntries } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf } from '../helpers/responses';
import {
  createWebhookTestApp,
  esimCallback,
  fakeStoreOrders,
  inboxRows,
  insertPayment,
  intentEvent,
  paymentRow,
  postCardEvent,
  sendCardEvent,
  signCard,
  webhookEvents,
  withInboxRefused,
  withWebhookEventsRefused,
  type PaymentFixture,
  type WebhookTestApp,
} from '../helpers/webhooks';

// No Temporal anywhere in this file: the route only verifies, records mismatches and writes the inbox.
const store = fakeStoreOrders();
let w: WebhookTestApp;
let userId: string;

beforeAll(async () => {
  w = await createWebhookTestApp({ storeOrders: store.storeOrders });
  userId = (await insertPayment(w.t)).userId;
});
afterAll(() => w.close());
beforeEach(() => {
  store.enqueued.length = 0;
  store.state.fail = false;
});

/** What the relay would hand over for a payment: [event id, type, failure message] in arrival order. */
const kept = async (paymentId: string) =>
  (await inboxRows(w.t, paymentId)).map((r) => [r.event_id, r.type, r.failure_message, r.status] as const);

const payment = (opts: Parameters<typeof insertPayment>[1] = {}) => insertPayment(w.t, { userId, ...opts });
const secret = () => w.t.config.CARD_PROCESSOR_WEBHOOK_SECRET;
const now = () => Math.floor(w.t.clock().getTime() / 1000);
const tolerance = () => w.t.config.CARD_PROCESSOR_WEBHOOK_TOLERANCE_SECONDS;

/**
 * A transaction that keeps inbox rows and holds their event ids until it commits, as a statement of the
 * route in flight does. It outwaits the route's statements in a deadlock (deadlock_timeout 10 s against
 * the default 1 s), so PostgreSQL aborts the route's statement.
 */
async function heldTransaction() {
  const client = await w.t.db.pool.connect();
  await client.query(`begin`);
  await client.query(`set local deadlock_timeout = '10s'`);
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  return {
    keep: (event: { id: string }, p: PaymentFixture) =>
      client.query(
        `insert into webhook_inbox (provider, event_id, payment_id, type, received_at, next_attempt_at)
         values ('card_processor', $1, $2, 'payment_intent.succeeded', now(), now())`,
        [event.id, p.paymentId],
      ),
    /** Until `count` statements wait for this transaction. */
    blocking: (count: number) =>
      eventually(async () => {
        const [row] = await w.t.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))`,
          [rows[0].pid],
        );
        expect(row.n).toBe(count);
      }),
    async commit() {
      await client.query('commit');
      client.release();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('POST /webhooks/card-processor: Processor-Signature', () => {
  let p: PaymentFixture;
  let payload: string;
  beforeEach(async () => {
    p = await payment();
    payload = JSON.stringify(intentEvent('payment_intent.succeeded', p));
  });

  it('accepts a header made by the processor library for the raw body, and keeps the event in the inbox for settlement', async () => {
    const res = await postCardEvent(w.app, payload, signCard(payload, { secret: secret(), timestamp: now() }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    const [row] = await inboxRows(w.t, p.paymentId);
    expect(row).toMatchObject({
      provider: 'card_processor',
      event_id: (JSON.parse(payload) as { id: string }).id,
      type: 'payment_intent.succeeded',
      status: 'pending',
      attempts: 0,
      handled_at: null,
    });
    expect(row.next_attempt_at).toBeLessThanOrEqual(Date.now());
    // Acknowledged, not settled: completion is the workflow's job.
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');
  });

  it('refuses a signature made with another secret', async () => {
    const res = await postCardEvent(w.app, payload, signCard(payload, { secret: 'whsec_someone_else_entirely_123', timestamp: now() }));
    expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
  });

  it('refuses a timestamp older than the tolerance, and one too far in the future, though correctly signed', async () => {
    const stale = await postCardEvent(w.app, payload, signCard(payload, { secret: secret(), timestamp: now() - tolerance() - 1 }));
    expect([stale.status, errorCode(stale)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    const future = await postCardEvent(w.app, payload, signCard(payload, { secret: secret(), timestamp: now() + tolerance() + 5 }));
    expect([future.status, errorCode(future)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    const edge = await postCardEvent(w.app, payload, signCard(payload, { secret: secret(), timestamp: now() - tolerance() + 1 }));
    expect(edge.status).toBe(200);
    expect(await inboxRows(w.t, p.paymentId)).toHaveLength(1);
  });

  it('answers WEBHOOK_SIGNATURE_MISSING without the header or with an empty one', async () => {
    const none = await postCardEvent(w.app, payload, undefined);
    expect([none.status, errorCode(none)]).toEqual([400, 'WEBHOOK_SIGNATURE_MISSING']);
    const empty = await postCardEvent(w.app, payload, '');
    expect([empty.status, errorCode(empty)]).toEqual([400, 'WEBHOOK_SIGNATURE_MISSING']);
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
  });

  it('refuses a body changed after signing: one amount digit, or only whitespace (raw bytes are what is signed)', async () => {
    const header = signCard(payload, { secret: secret(), timestamp: now() });
    const tampered = payload.replace('"amount":4900', '"amount":4901');
    expect(tampered).not.toBe(payload);
    const res = await postCardEvent(w.app, tampered, header);
    expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    const reformatted = await postCardEvent(w.app, JSON.stringify(JSON.parse(payload), null, 2), header);
    expect([reformatted.status, errorCode(reformatted)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
  });

  it('accepts a header with several v1 values when one matches (secret rotation), in any position', async () => {
    const t = now();
    const good = signCard(payload, { secret: secret(), timestamp: t }).split('v1=')[1];
    const old = signCard(payload, { secret: 'whsec_the_previous_secret_000', timestamp: t }).split('v1=')[1];
    for (const header of [`t=${t},v1=${old},v1=${good}`, `t=${t},v1=${good},v1=${old}`, `t=${t},v0=${old},v1=${good}`]) {
      const res = await postCardEvent(w.app, payload, header);
      expect(res.status).toBe(200);
    }
    const none = await postCardEvent(w.app, payload, `t=${t},v1=${old},v1=${'0'.repeat(64)}`);
    expect([none.status, errorCode(none)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    // Only the v1 scheme counts.
    const v0 = await postCardEvent(w.app, payload, `t=${t},v0=${good}`);
    expect([v0.status, errorCode(v0)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
  });

  it('refuses malformed headers: no timestamp, garbage, a signature without t', async () => {
    const good = signCard(payload, { secret: secret(), timestamp: now() });
    for (const header of ['garbage', good.replace(/^t=\d+,/, ''), `t=abc,${good.split(',')[1]}`]) {
      const res = await postCardEvent(w.app, payload, header);
      expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    }
  });

  it('verifies whatever the content type (the body is never parsed before verification)', async () => {
    const header = signCard(payload, { secret: secret(), timestamp: now() });
    const res = await request(w.app)
      .post('/webhooks/card-processor')
      .set('Content-Type', 'text/plain')
      .set('Processor-Signature', header)
      .send(payload);
    expect(res.status).toBe(200);
  });

  it('answers VALIDATION_ERROR for a correctly signed body that is not JSON or not an event', async () => {
    const notJson = 'not json at all';
    const res = await postCardEvent(w.app, notJson, signCard(notJson, { secret: secret(), timestamp: now() }));
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    const noType = JSON.stringify({ id: 'evt_x', data: { object: {} } });
    const res2 = await postCardEvent(w.app, noType, signCard(noType, { secret: secret(), timestamp: now() }));
    expect([res2.status, errorCode(res2)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('POST /webhooks/card-processor: events', () => {
  it('payment_intent.succeeded that matches is kept once per event id: redeliveries, also racing ones, are one row', async () => {
    const p = await payment();
    const event = intentEvent('payment_intent.succeeded', p);
    expect((await sendCardEvent(w, event)).body).toEqual({ received: true });
    expect((await sendCardEvent(w, event)).body).toEqual({ received: true });
    const raced = await Promise.all(Array.from({ length: 6 }, () => sendCardEvent(w, event)));
    expect(raced.map((r) => [r.status, r.body as unknown])).toEqual(Array.from({ length: 6 }, () => [200, { received: true }]));
    expect(await kept(p.paymentId)).toEqual([[event.id, 'payment_intent.succeeded', null, 'pending']]);
    // A second event id of the same state is a row of its own, after the first.
    const another = intentEvent('payment_intent.succeeded', p);
    await sendCardEvent(w, another);
    expect((await kept(p.paymentId)).map((k) => k[0])).toEqual([event.id, another.id]);
    expect(await webhookEvents(w.t, { paymentId: p.paymentId })).toEqual([]);
  });

  it('answers each of many concurrent deliveries on its own, though they share statements (group commit)', async () => {
    const [a, b, failing, mismatched] = await Promise.all([payment(), payment(), payment(), payment()]);
    const successes = [a, a, b].map((p) => intentEvent('payment_intent.succeeded', p));
    const failure = intentEvent('payment_intent.payment_failed', failing, { last_payment_error: { message: 'Declined' } });
    const mismatch = intentEvent('payment_intent.succeeded', mismatched, { currency: 'usd' });
    const stranger = intentEvent('payment_intent.succeeded', {
      ...a,
      paymentId: '00000000-0000-4000-8000-0000000000f1',
      intentId: 'pi_f1',
    });
    // Every event three times, all at once: redeliveries race each other inside one statement too.
    const deliveries = [...successes, failure, mismatch, stranger].flatMap((e) => [e, e, e]);
    const query = jest.spyOn(w.t.db.pool, 'query');
    const answers = await Promise.all(deliveries.map((e) => sendCardEvent(w, e)));
    const statements = query.mock.calls.filter((args: unknown[]) => (args[0] as { name?: string }).name === 'webhooks.card-find-and-keep');
    query.mockRestore();

    expect(answers.map((r) => [r.status, r.body as unknown])).toEqual(
      deliveries.map((e) => [200, e === stranger ? { received: true, ignored: true } : { received: true }]),
    );
    expect(statements.length).toBeLessThan(deliveries.length);
    expect((await kept(a.paymentId)).map((k) => k[0]).sort()).toEqual([successes[0].id, successes[1].id].sort());
    expect((await kept(b.paymentId)).map((k) => k[0])).toEqual([successes[2].id]);
    expect(await kept(failing.paymentId)).toEqual([[failure.id, 'payment_intent.payment_failed', 'Declined', 'pending']]);
    expect(await inboxRows(w.t, mismatched.paymentId)).toEqual([]);
    expect(await paymentRow(w.t, mismatched.paymentId)).toMatchObject({
      status: 'failed',
      failure_reason: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH',
    });
  });

  it('a statement that deadlocks with another over the same events, kept in the other order, runs again: every delivery answered 200', async () => {
    const [p, q] = [await payment(), await payment()];
    const [e1, e2] = [intentEvent('payment_intent.succeeded', p), intentEvent('payment_intent.succeeded', p)];
    const [x, y] = [intentEvent('payment_intent.succeeded', q), intentEvent('payment_intent.succeeded', q)];
    // Two transactions stand in for other statements: `first` keeps x and y, so the route's two statements in
    // flight (x, y) wait on it and e2, then e1, queue as the next batch; `other` keeps e1, then e2.
    const [first, other] = [await heldTransaction(), await heldTransaction()];
    await first.keep(x, q);
    await first.keep(y, q);
    await other.keep(e1, p);
    const statements = jest.spyOn(w.t.db.pool, 'query');
    const send = (event: object) => sendCardEvent(w, event).then((res) => res); // sent now, not when awaited
    const answers = [send(x), send(y)];
    await first.blocking(2);
    answers.push(send(e2));
    await sleep(100);
    answers.push(send(e1));
    await sleep(500); // both verified and queued behind the statements in flight
    await first.commit();
    await other.blocking(1); // the batch [e2, e1]: e2 kept, waiting for e1
    await other.keep(e2, p); // waits for the batch: a deadlock, which PostgreSQL ends by aborting the batch
    await other.commit();

    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Each run of the route's statement, by the event ids it kept: the batch [e2, e1] ran again, after a pause
    // that lets `other` take e2 first (run at once, it could take e2 back and deadlock again: CI saw it).
    const runs = statements.mock.calls.map(([s]) => s as unknown as { name?: string; values: unknown[] });
    statements.mockRestore();
    const batches = runs.filter((s) => s.name === 'webhooks.card-find-and-keep').map((s) => s.values[2]);
    expect(batches.slice(0, 2)).toEqual([[x.id], [y.id]]);
    expect(batches.length).toBeGreaterThanOrEqual(4);
    expect(batches.slice(2)).toEqual(batches.slice(2).map(() => [e2.id, e1.id]));
    expect((await kept(p.paymentId)).map((k) => k[0])).toEqual([e1.id, e2.id]);
  });

  it('computes minor units exactly for amounts floats get wrong (19.99, 1234567.89)', async () => {
    for (const amount of ['19.99', '1234567.89', '0.29']) {
      const p = await payment({ amount });
      const minor = { '19.99': 1999, '1234567.89': 123456789, '0.29': 29 }[amount]!;
      const res = await sendCardEvent(w, intentEvent('payment_intent.succeeded', p, { amount: minor, amount_received: minor }));
      expect(res.status).toBe(200);
      expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');
      expect(await inboxRows(w.t, p.paymentId)).toHaveLength(1);
    }
  });

  it('finds the payment by the intent id when metadata.payment_id is absent (and then rule 4 fails)', async () => {
    const p = await payment();
    const res = await sendCardEvent(
      w,
      intentEvent('payment_intent.succeeded', p, { metadata: { order_id: p.orderId, user_id: p.userId } }),
    );
    expect(res.body).toEqual({ received: true });
    expect(await paymentRow(w.t, p.paymentId)).toMatchObject({ status: 'failed', failure_reason: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH' });
  });

  type Expected = Array<Record<string, unknown>>;
  const mismatches: Array<[string, (p: PaymentFixture) => Record<string, unknown>, (p: PaymentFixture) => Expected]> = [
    [
      '1. status is not succeeded',
      () => ({ status: 'processing' }),
      () => [{ rule: 'status', field: 'status', expected: 'succeeded', received: 'processing' }],
    ],
    [
      '2. currency differs (upper-cased)',
      () => ({ currency: 'usd' }),
      () => [{ rule: 'currency', field: 'currency', expected: 'SAR', received: 'USD' }],
    ],
    ['3. amount differs', () => ({ amount: 4800 }), () => [{ rule: 'amount', field: 'amount', expected: '4900', received: '4800' }]],
    [
      '3. amount_received differs',
      () => ({ amount_received: 4899 }),
      () => [{ rule: 'amount', field: 'amount_received', expected: '4900', received: '4899' }],
    ],
    [
      '3. amount is not an integer of minor units',
      () => ({ amount: 49.0001 }),
      () => [{ rule: 'amount', field: 'amount', expected: '4900', received: '49.0001' }],
    ],
    [
      '4. metadata missing',
      () => ({ metadata: null }),
      (p) => [
        { rule: 'metadata', field: 'metadata.payment_id', expected: p.paymentId, received: null },
        { rule: 'metadata', field: 'metadata.order_id', expected: p.orderId, received: null },
        { rule: 'metadata', field: 'metadata.user_id', expected: p.userId, received: null },
      ],
    ],
    [
      '4. metadata order_id differs',
      (p) => ({ metadata: { payment_id: p.paymentId, order_id: '00000000-0000-4000-8000-000000000000', user_id: p.userId } }),
      (p) => [{ rule: 'metadata', field: 'metadata.order_id', expected: p.orderId, received: '00000000-0000-4000-8000-000000000000' }],
    ],
    [
      '4. metadata order_id in capitals (ids compare as text, as stored)',
      (p) => ({ metadata: { payment_id: p.paymentId, order_id: p.orderId.toUpperCase(), user_id: p.userId } }),
      (p) => [{ rule: 'metadata', field: 'metadata.order_id', expected: p.orderId, received: p.orderId.toUpperCase() }],
    ],
    [
      '4. metadata user_id missing',
      (p) => ({ metadata: { payment_id: p.paymentId, order_id: p.orderId } }),
      (p) => [{ rule: 'metadata', field: 'metadata.user_id', expected: p.userId, received: null }],
    ],
  ];

  it.each(mismatches)(
    'mismatch (%s): nothing completes, the payment fails, a record and a structured log are written, 200',
    async (_name, override, expected) => {
      const p = await payment();
      const marker = `RAW-PAYLOAD-MARKER-${p.paymentId}`;
      const event = intentEvent('payment_intent.succeeded', p, { ...override(p), description: marker });
      const res = await sendCardEvent(w, event);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      // Recorded before the answer, and never handed to settlement.
      expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
      const row = await paymentRow(w.t, p.paymentId);
      expect(row).toMatchObject({
        status: 'failed',
        failure_reason: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH',
        receipt_number: null,
        paid_at: null,
      });
      expect((await w.t.db.query('select status from orders where id = $1', [p.orderId]))[0]).toEqual({ status: 'pending_payment' });
      const records = await webhookEvents(w.t, { paymentId: p.paymentId });
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        provider: 'card_processor',
        event_id: event.id,
        type: 'payment_intent.succeeded',
        outcome: 'mismatch',
      });
      expect(records[0].detail).toMatchObject({ code: 'PAYMENT_PROVIDER_AMOUNT_MISMATCH', intentId: p.intentId, mismatches: expected(p) });
      const log = logEntries(w.logLines).find((l) => l.code === 'PAYMENT_PROVIDER_AMOUNT_MISMATCH' && l.paymentId === p.paymentId);
      expect(log).toMatchObject({ level: 40, eventId: event.id, mismatches: match.any(Array), recorded: true, paymentFailed: true });
      // No raw payload anywhere: not in the log, not in the record.
      expect(w.logLines.join('\n')).not.toContain(marker);
      expect(JSON.stringify(records)).not.toContain(marker);
    },
  );

  it('a mismatch on a payment that is not processing records it but changes nothing (completed is never downgraded)', async () => {
    const p = await payment({ status: 'completed' });
    await w.t.db.query(`update payments set receipt_number = 'RCP-20260101-AAAA0001', paid_at = now() where id = $1`, [p.paymentId]);
    const res = await sendCardEvent(w, intentEvent('payment_intent.succeeded', p, { amount: 1 }));
    expect(res.body).toEqual({ received: true });
    expect(await paymentRow(w.t, p.paymentId)).toMatchObject({
      status: 'completed',
      failure_reason: null,
      receipt_number: 'RCP-20260101-AAAA0001',
    });
    expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => e.outcome)).toEqual(['mismatch']);
  });

  it('a redelivered mismatch keeps one record', async () => {
    const p = await payment();
    const event = intentEvent('payment_intent.succeeded', p, { currency: 'eur' });
    await sendCardEvent(w, event);
    const again = await sendCardEvent(w, event);
    expect(again.body).toEqual({ received: true });
    expect(await webhookEvents(w.t, { paymentId: p.paymentId })).toHaveLength(1);
  });

  it('when the mismatch cannot be recorded: 500 PAYMENT_MISMATCH_RECORD_FAILED, nothing half-written; the redelivery records it', async () => {
    const p = await payment();
    const event = intentEvent('payment_intent.succeeded', p, { amount: 100, amount_received: 100 });
    await withWebhookEventsRefused(w.t, async () => {
      const res = await sendCardEvent(w, event);
      expect([res.status, errorCode(res)]).toEqual([500, 'PAYMENT_MISMATCH_RECORD_FAILED']);
      // One transaction: the payment did not fail without its record.
      expect((await paymentRow(w.t, p.paymentId)).status).toBe('processing');
      expect(await webhookEvents(w.t, { paymentId: p.paymentId })).toEqual([]);
    });
    const redelivered = await sendCardEvent(w, event);
    expect([redelivered.status, redelivered.body]).toEqual([200, { received: true }]);
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('failed');
    expect((await webhookEvents(w.t, { paymentId: p.paymentId })).map((e) => e.outcome)).toEqual(['mismatch']);
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
  });

  it('payment_failed is kept with the last payment error message; canceled as is; both in arrival order', async () => {
    const p = await payment();
    const failed = intentEvent('payment_intent.payment_failed', p, { last_payment_error: { message: 'Your card was declined.' } });
    expect((await sendCardEvent(w, failed)).body).toEqual({ received: true });
    const canceled = intentEvent('payment_intent.canceled', p);
    expect((await sendCardEvent(w, canceled)).body).toEqual({ received: true });
    expect(await kept(p.paymentId)).toEqual([
      [failed.id, 'payment_intent.payment_failed', 'Your card was declined.', 'pending'],
      [canceled.id, 'payment_intent.canceled', null, 'pending'],
    ]);
  });

  it('late events for a completed payment are acknowledged and never kept (no downgrade, no second settlement)', async () => {
    const p = await payment({ status: 'completed' });
    for (const type of ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled']) {
      expect((await sendCardEvent(w, intentEvent(type, p))).body).toEqual({ received: true });
    }
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
    expect((await paymentRow(w.t, p.paymentId)).status).toBe('completed');
  });

  it('a failure for a payment that failed already is acknowledged and not kept; a success still is (the retry with another card)', async () => {
    const p = await payment({ status: 'failed' });
    expect((await sendCardEvent(w, intentEvent('payment_intent.canceled', p))).body).toEqual({ received: true });
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
    const success = intentEvent('payment_intent.succeeded', p);
    expect((await sendCardEvent(w, success)).body).toEqual({ received: true });
    expect((await kept(p.paymentId)).map((k) => k[0])).toEqual([success.id]);
  });

  it('acknowledges other event types with ignored: true, and keeps nothing', async () => {
    const p = await payment();
    for (const type of ['payment_intent.created', 'charge.refunded', 'customer.created']) {
      const res = await sendCardEvent(w, intentEvent(type, p));
      expect([res.status, res.body]).toEqual([200, { received: true, ignored: true }]);
    }
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
  });

  it('acknowledges events naming no payment of ours with ignored: true, and keeps nothing', async () => {
    const p = await payment();
    const stranger = { ...p, paymentId: '00000000-0000-4000-8000-000000000001', intentId: 'pi_not_ours' };
    const before = (await inboxRows(w.t)).length;
    const res = await sendCardEvent(w, intentEvent('payment_intent.succeeded', stranger));
    expect([res.status, res.body]).toEqual([200, { received: true, ignored: true }]);
    expect(await inboxRows(w.t)).toHaveLength(before);
  });

  it('acknowledges without Temporal: there is none in this app, and the event waits in the inbox', async () => {
    const p = await payment();
    const event = intentEvent('payment_intent.succeeded', p);
    const res = await sendCardEvent(w, event);
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(await kept(p.paymentId)).toEqual([[event.id, 'payment_intent.succeeded', null, 'pending']]);
  });

  it('answers 500 INTERNAL_ERROR when the event cannot be kept, so the processor redelivers; the redelivery is kept once', async () => {
    const p = await payment();
    const event = intentEvent('payment_intent.succeeded', p);
    await withInboxRefused(w.t, async () => {
      const res = await sendCardEvent(w, event);
      expect([res.status, errorCode(res)]).toEqual([500, 'INTERNAL_ERROR']);
      expect(JSON.stringify(res.body)).not.toContain('disk full');
    });
    expect(await inboxRows(w.t, p.paymentId)).toEqual([]);
    expect((await sendCardEvent(w, event)).status).toBe(200);
    expect(await kept(p.paymentId)).toEqual([[event.id, 'payment_intent.succeeded', null, 'pending']]);
  });

  it('ignores mock payments (they never wait on the processor)', async () => {
    const p = await payment();
    await w.t.db.query(`update payments set provider = 'mock' where id = $1`, [p.paymentId]);
    const res = await sendCardEvent(w, intentEvent('payment_intent.succeeded', p));
    expect(res.body).toEqual({ received: true, ignored: true });
  });
});

describe('POST /webhooks/esim-provider', () => {
  const post = (body: unknown) =>
    request(w.app)
      .post('/webhooks/esim-provider')
      .send(body as object);
  let order = 0;
  const newOrder = (known = true) => {
    order += 1;
    const id = `ord-${process.pid}-${order}`;
    if (known) store.state.known.add(id);
    return id;
  };

  it('verifies, keeps a minimal receipt and hands the order to reconciliation; QR and LPA in the body are never stored', async () => {
    const orderId = newOrder();
    const lpa = 'LPA:1$smdp.example.com$SECRET-MATCHING-ID';
    const res = await post(
      esimCallback(orderId, {
        extra: { reason: 'identity_check', eventId: 'dlv_1', qrCode: 'data:image/png;base64,SECRETQR', lpa, activationCode: lpa },
      }),
    );
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(store.enqueued).toEqual([orderId]);
    const receipts = await w.t.db.query<Record<string, unknown>>(
      `select * from webhook_events where provider = 'esim_provider' and event_id = $1`,
      [`${orderId}:completed`],
    );
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      type: 'order.completed',
      outcome: 'enqueued',
      payment_id: null,
      detail: { orderId, providerName: 'esim_provider_1', status: 'completed', reason: 'identity_check', providerEventId: 'dlv_1' },
    });
    const everything = JSON.stringify(await w.t.db.query('select * from webhook_events')) + w.logLines.join('\n');
    expect(everything).not.toContain('SECRET-MATCHING-ID');
    expect(everything).not.toContain('SECRETQR');
  });

  it('answers a duplicate with 200 duplicate: true and hands nothing over again; another status is new', async () => {
    const orderId = newOrder();
    await post(esimCallback(orderId, { status: 'failed' }));
    const again = await post(esimCallback(orderId, { status: 'failed', extra: { eventId: 'another-delivery-id' } }));
    expect([again.status, again.body]).toEqual([200, { received: true, duplicate: true }]);
    expect(store.enqueued).toEqual([orderId]);
    const completed = await post(esimCallback(orderId, { status: 'completed' }));
    expect(completed.body).toEqual({ received: true });
    expect(store.enqueued).toEqual([orderId, orderId]);
  });

  it('acknowledges a valid callback for an unknown order and keeps it as a minimal receipt', async () => {
    const orderId = newOrder(false);
    const res = await post(esimCallback(orderId));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(store.enqueued).toEqual([]);
    const [receipt] = await w.t.db.query<Record<string, unknown>>(`select outcome from webhook_events where event_id = $1`, [
      `${orderId}:completed`,
    ]);
    expect(receipt).toEqual({ outcome: 'unknown_order' });
  });

  it('answers 503 when the handoff fails and keeps nothing, so the redelivery is handled', async () => {
    const orderId = newOrder();
    store.state.fail = true;
    const res = await post(esimCallback(orderId));
    expect(res.status).toBe(503);
    expect(errorOf(res).code).toBe('SERVICE_UNAVAILABLE');
    expect(await w.t.db.query(`select 1 from webhook_events where event_id = $1`, [`${orderId}:completed`])).toEqual([]);
    store.state.fail = false;
    const redelivered = await post(esimCallback(orderId));
    expect(redelivered.body).toEqual({ received: true });
    expect(store.enqueued).toEqual([orderId]);
  });

  it('refuses a signature by another key, over other fields, or not base64, with WEBHOOK_SIGNATURE_INVALID', async () => {
    const orderId = newOrder();
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const cases = [
      esimCallback(orderId, { privateKey: otherKey }),
      { ...esimCallback(orderId), orderId: newOrder() }, // signed for another order
      { ...esimCallback(orderId), providerName: 'other_provider' },
      { ...esimCallback(orderId), signature: 'not base64 !!' },
      { ...esimCallback(orderId), signature: Buffer.from('short').toString('base64') },
    ];
    for (const body of cases) {
      const res = await post(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    }
    expect(store.enqueued).toEqual([]);
    expect(
      await w.t.db.query(`select 1 from webhook_events where provider = 'esim_provider' and event_id like $1`, [`${orderId}:%`]),
    ).toEqual([]);
  });

  it('refuses a correctly signed callback for another merchant', async () => {
    const res = await post(esimCallback(newOrder(), { merchantId: 'someone-else' }));
    expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    expect(store.enqueued).toEqual([]);
  });

  it('takes a partner-signature header as nothing without a partner configured (the mocks): the spec’s callback as ever', async () => {
    const orderId = newOrder();
    const res = await request(w.app).post('/webhooks/esim-provider').set('partner-signature', 'ab'.repeat(64)).send(esimCallback(orderId));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(store.enqueued).toEqual([orderId]);
  });

  it('answers WEBHOOK_SIGNATURE_MISSING without a signature', async () => {
    const unsigned: Record<string, unknown> = esimCallback(newOrder());
    delete unsigned.signature;
    const res = await post(unsigned);
    expect([res.status, errorCode(res)]).toEqual([400, 'WEBHOOK_SIGNATURE_MISSING']);
  });

  it('answers VALIDATION_ERROR with the fields for an invalid payload, before looking at the signature', async () => {
    const missing = await post({ merchantId: 'dev-merchant', signature: 'AAAA' });
    expect([missing.status, errorCode(missing)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(
      errorOf<FieldIssue[]>(missing)
        .details.map((d) => d.path)
        .sort(),
    ).toEqual(['orderId', 'providerName', 'status']);
    const dotted = await post({ ...esimCallback('a.b'), status: 'shipped' });
    expect(
      errorOf<FieldIssue[]>(dotted)
        .details.map((d) => d.path)
        .sort(),
    ).toEqual(['orderId', 'status']);
    const notJson = await request(w.app).post('/webhooks/esim-provider').set('Content-Type', 'application/json').send('{nope');
    expect([notJson.status, errorCode(notJson)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('webhooks with the store’s own hand-off (src/store/callbacks.ts)', () => {
  it('keeps a callback for an order the store does not know as an unknown-order receipt', async () => {
    const bare = await createWebhookTestApp();
    try {
      const res = await request(bare.app).post('/webhooks/esim-provider').send(esimCallback('ord-seam-1'));
      expect([res.status, res.body]).toEqual([200, { received: true }]);
      expect(await bare.t.db.query(`select outcome from webhook_events where event_id = 'ord-seam-1:completed'`)).toEqual([
        { outcome: 'unknown_order' },
      ]);
    } finally {
      await bare.close();
    }
  });
});

describe('OpenAPI', () => {
  it('documents both webhooks: header, bodies, the acknowledgements and every error answer', () => {
    const doc = buildDocument(w.registry, 'http://localhost') as unknown as {
      paths: Record<
        string,
        {
          post: {
            parameters?: Array<{ name: string; in: string; required?: boolean }>;
            requestBody: unknown;
            responses: Record<string, { description: string }>;
          };
        }
      >;
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const card = doc.paths['/webhooks/card-processor'].post;
    expect(card.parameters).toEqual([match.objectContaining({ name: 'Processor-Signature', in: 'header', required: true })]);
    // Its 503 is Postgres away only (the processor redelivers): the route never waits on Temporal.
    expect(Object.keys(card.responses).sort()).toEqual(['200', '400', '500', '503']);
    expect(card.responses['400'].description).toMatch(/WEBHOOK_SIGNATURE_MISSING.*WEBHOOK_SIGNATURE_INVALID/s);
    expect(card.responses['500'].description).toContain('PAYMENT_MISMATCH_RECORD_FAILED');
    const esim = doc.paths['/webhooks/esim-provider'].post;
    expect(Object.keys(esim.responses).sort()).toEqual(['200', '400', '500', '503']);
    expect(esim.responses['400'].description).toMatch(/VALIDATION_ERROR.*WEBHOOK_SIGNATURE_MISSING.*WEBHOOK_SIGNATURE_INVALID/s);
    const body = doc.components.schemas.EsimProviderCallback;
    expect(Object.keys(body.properties).sort()).toEqual([
      'eventId',
      'merchantId',
      'orderId',
      'providerName',
      'reason',
      'signature',
      'status',
    ]);
    expect(body.required?.sort()).toEqual(['merchantId', 'orderId', 'providerName', 'status']);
    expect(doc.components.schemas.CardProcessorAck).toBeDefined();
    expect(doc.components.schemas.EsimProviderAck).toBeDefined();
  });
});
