// The webhook relay against a real database: inbox rows written by the real route, handed to a
// fake of the settlement workflows (Temporal itself is in test/workflows/webhook-relay-fault.test.ts).
import { createLogger } from '../../src/http/logger';
import { createInboxRelay, type InboxRelay, type InboxRelayOptions } from '../../src/webhooks/relay';
import { eventually } from '../helpers/app';
import {
  createWebhookTestApp,
  fakePaymentRuns,
  inboxRows,
  insertPayment,
  intentEvent,
  sendCardEvent,
  type PaymentFixture,
  type WebhookTestApp,
} from '../helpers/webhooks';

jest.setTimeout(30_000);

let w: WebhookTestApp;
let userId: string;
const logLines: string[] = [];
const relays: InboxRelay[] = [];

beforeAll(async () => {
  w = await createWebhookTestApp();
  userId = (await insertPayment(w.t)).userId;
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  // Every test starts with an empty queue: what one leaves pending must not reach the next one's relay.
  await w.t.db.query(`update webhook_inbox set status = 'skipped' where status = 'pending'`);
});
afterAll(() => w.close());

const payment = (opts: Parameters<typeof insertPayment>[1] = {}) => insertPayment(w.t, { userId, ...opts });

/**
 * A failed row's own backoff that outlasts any stall between the failure and the checks after it:
 * with the default 0.5 s a slow machine could see the row due again, claimed and failed twice.
 */
const LONG_BACKOFF = { baseBackoffMs: 60_000, maxBackoffMs: 120_000 };

function relayFor(temporal: ReturnType<typeof fakePaymentRuns>, opts: Partial<InboxRelayOptions> = {}): InboxRelay {
  const relay = createInboxRelay({
    db: w.t.db.sql,
    runs: temporal.runs,
    logger: createLogger('info', { write: (line: string) => void logLines.push(line) }),
    batchSize: 50,
    pollIntervalMs: 60_000,
    maxBackoffMs: 10_000,
    ...opts,
  });
  relays.push(relay);
  return relay;
}

/** Sends events through the route (signed, verified, kept); returns their ids in sending order. */
async function send(p: PaymentFixture, types: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const type of types) {
    const event = intentEvent(type, p, type === 'payment_intent.payment_failed' ? { last_payment_error: { message: 'declined' } } : {});
    expect((await sendCardEvent(w, event)).status).toBe(200);
    ids.push(event.id);
  }
  return ids;
}

const deliveredTo = (temporal: ReturnType<typeof fakePaymentRuns>, p: PaymentFixture) =>
  temporal.delivered.filter((d) => d.paymentId === p.paymentId).map((d) => d.event.eventId);

const FAIL = 'payment_intent.payment_failed';
const CANCEL = 'payment_intent.canceled';
const OK = 'payment_intent.succeeded';

describe('relaying the inbox', () => {
  it('hands every row to its payment settlement workflow, in arrival order per payment, one row per payment per claim', async () => {
    const temporal = fakePaymentRuns();
    temporal.state.delayMs = 30; // parallel signals finish in any order
    const [p, q] = [await payment(), await payment()];
    const pIds = await send(p, [FAIL, CANCEL, OK]);
    const qIds = await send(q, [OK, FAIL]);
    const relay = relayFor(temporal);

    const first = await relay.relayOnce();
    expect(first).toMatchObject({ claimed: 2, delivered: 2, skipped: 0, failed: 0 });
    expect(temporal.delivered.map((d) => d.event.eventId).sort()).toEqual([pIds[0], qIds[0]].sort());
    expect(await relay.drain()).toEqual({ claimed: 3, delivered: 3, skipped: 0, failed: 0 });

    expect(deliveredTo(temporal, p)).toEqual(pIds);
    expect(deliveredTo(temporal, q)).toEqual(qIds);
    expect(temporal.delivered.find((d) => d.event.eventId === pIds[0])?.event).toEqual({
      eventId: pIds[0],
      type: FAIL,
      failureMessage: 'declined',
    });
    for (const row of await inboxRows(w.t)) {
      if (![...pIds, ...qIds].includes(row.event_id)) continue;
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_error: null, handled_at: expect.any(Number) as number });
    }
    expect(await relay.drain()).toEqual({ claimed: 0, delivered: 0, skipped: 0, failed: 0 });
  });

  it('marks rows skipped without a signal when their payment settled meanwhile (a success after completion, a failure after failure)', async () => {
    const temporal = fakePaymentRuns();
    const p = await payment();
    const [success] = await send(p, [OK]);
    await w.t.db.query(`update payments set status = 'completed' where id = $1`, [p.paymentId]);
    const q = await payment();
    const [failure, retried] = await send(q, [FAIL, OK]);
    await w.t.db.query(`update payments set status = 'failed' where id = $1`, [q.paymentId]);

    expect(await relayFor(temporal).drain()).toEqual({ claimed: 3, delivered: 1, skipped: 2, failed: 0 });
    // A success still completes a failed payment (the processor's retry with another card).
    expect(temporal.delivered.map((d) => d.event.eventId)).toEqual([retried]);
    const status = async (id: string) => (await inboxRows(w.t)).find((r) => r.event_id === id)?.status;
    expect([await status(success), await status(failure), await status(retried)]).toEqual(['skipped', 'skipped', 'delivered']);
  });
});

describe('while Temporal cannot take events', () => {
  it('keeps the rows pending with the attempt and its error, then delivers all of them in order once Temporal answers', async () => {
    const temporal = fakePaymentRuns();
    const p = await payment();
    const ids = await send(p, [FAIL, OK, CANCEL]);
    const relay = relayFor(temporal, LONG_BACKOFF);
    temporal.state.fail = true;

    expect(await relay.drain()).toEqual({ claimed: 1, delivered: 0, skipped: 0, failed: 1 });
    const [head, ...rest] = await inboxRows(w.t, p.paymentId);
    expect(head).toMatchObject({ status: 'pending', attempts: 1, last_error: 'Error: Temporal unavailable', handled_at: null });
    expect(head.next_attempt_at).toBeGreaterThan(Date.now()); // its own backoff
    expect(rest.map((r) => [r.status, r.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    // Not due again yet, and the later rows wait behind it: nothing to claim.
    expect(await relay.relayOnce()).toMatchObject({ claimed: 0, nextDueInMs: expect.any(Number) as number });
    expect(temporal.delivered).toEqual([]);

    temporal.state.fail = false;
    await w.t.db.query(`update webhook_inbox set next_attempt_at = now() where event_id = $1`, [ids[0]]); // its backoff passed
    expect(await relay.drain()).toMatchObject({ delivered: 3, failed: 0 });
    expect(deliveredTo(temporal, p)).toEqual(ids);
    expect((await inboxRows(w.t, p.paymentId)).map((r) => [r.status, r.attempts])).toEqual([
      ['delivered', 2],
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });

  it('the first success after failures makes every waiting row due at once, not after its own backoff', async () => {
    const temporal = fakePaymentRuns();
    const [p, q] = [await payment(), await payment()];
    const [pId] = await send(p, [OK]);
    const [qId] = await send(q, [OK]);
    const relay = relayFor(temporal, LONG_BACKOFF);
    temporal.state.fail = true;
    expect(await relay.drain()).toMatchObject({ failed: 2 });

    temporal.state.fail = false;
    await w.t.db.query(`update webhook_inbox set next_attempt_at = now() where event_id = $1`, [pId]);
    expect(await relay.drain()).toMatchObject({ delivered: 2 });
    expect(temporal.delivered.map((d) => d.event.eventId).sort()).toEqual([pId, qId].sort());
  });

  it('an event Temporal keeps refusing holds back its own payment only', async () => {
    const temporal = fakePaymentRuns();
    const [p, q] = [await payment(), await payment()];
    const pIds = await send(p, [FAIL, OK]);
    const qIds = await send(q, [FAIL, OK]);
    temporal.state.failEvents.add(pIds[0]);

    expect(await relayFor(temporal, LONG_BACKOFF).drain()).toEqual({ claimed: 3, delivered: 2, skipped: 0, failed: 1 });
    expect(deliveredTo(temporal, q)).toEqual(qIds);
    expect(deliveredTo(temporal, p)).toEqual([]);
    expect((await inboxRows(w.t, p.paymentId)).map((r) => r.status)).toEqual(['pending', 'pending']);
  });
});

describe('several relays, and relays that die', () => {
  it('two relays at once deliver each row exactly once and never reorder a payment', async () => {
    const temporal = fakePaymentRuns();
    temporal.state.delayMs = 20;
    const payments = await Promise.all(Array.from({ length: 12 }, () => payment()));
    const sent = new Map<string, string[]>();
    await Promise.all(payments.map(async (p) => sent.set(p.paymentId, await send(p, [FAIL, CANCEL, OK]))));
    const [a, b] = [relayFor(temporal, { batchSize: 5 }), relayFor(temporal, { batchSize: 5 })];

    // A relay that finds everything locked by the other stops early: go on until nothing is pending.
    while ((await inboxRows(w.t)).some((r) => r.status === 'pending')) await Promise.all([a.drain(), b.drain()]);

    const ids = temporal.delivered.map((d) => d.event.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of payments) expect(deliveredTo(temporal, p)).toEqual(sent.get(p.paymentId));
  });

  it('a relay that dies mid-batch leaves its rows pending; another relay delivers them (at least once)', async () => {
    const p = await payment();
    const [id] = await send(p, [OK]);
    // The first relay's signal is taken, but its connection dies before it marks the row.
    let release!: () => void;
    const taken = new Promise<void>((resolve) => (release = resolve));
    const first = fakePaymentRuns();
    const dying = relayFor({
      ...first,
      runs: {
        ...first.runs,
        async deliverEvent(paymentId, event) {
          await taken;
          await first.runs.deliverEvent(paymentId, event);
        },
      },
    });
    const batch = dying.relayOnce();
    await eventually(async () => {
      const rows = await w.t.db.query(
        `select 1 from pg_stat_activity where datname = current_database() and state = 'idle in transaction'`,
      );
      expect(rows).toHaveLength(1);
    });
    await w.t.db.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and state = 'idle in transaction'`,
    );
    release();
    await expect(batch).rejects.toThrow();
    expect((await inboxRows(w.t, p.paymentId)).map((r) => r.status)).toEqual(['pending']);

    const second = fakePaymentRuns();
    expect(await relayFor(second).drain()).toMatchObject({ delivered: 1 });
    expect([...first.delivered, ...second.delivered].map((d) => d.event.eventId)).toEqual([id, id]);
    expect(await inboxRows(w.t, p.paymentId)).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1 })]);
  });
});

describe('the running loop', () => {
  it('wakes on a new row at once (LISTEN), long before its poll, and stops cleanly', async () => {
    const temporal = fakePaymentRuns();
    const relay = relayFor(temporal, { pollIntervalMs: 60_000 });
    relay.start();
    const p = await payment();
    const [id] = await send(p, [OK]);
    await eventually(() => expect(deliveredTo(temporal, p)).toEqual([id]), 3_000);
    // The row is marked in the transaction that handed it over, which commits just after the signal.
    await eventually(async () => expect((await inboxRows(w.t, p.paymentId))[0].status).toBe('delivered'), 3_000);

    await relay.stop();
    const q = await payment();
    await send(q, [OK]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveredTo(temporal, q)).toEqual([]);
    expect((await inboxRows(w.t, q.paymentId))[0].status).toBe('pending');
  });

  it('backs off while deliveries fail, without hammering on each new row, and delivers once they succeed', async () => {
    const temporal = fakePaymentRuns();
    let refused = 0;
    const counting = {
      ...temporal,
      runs: {
        ...temporal.runs,
        deliverEvent: (paymentId: string, event: Parameters<typeof temporal.runs.deliverEvent>[1]) => {
          if (temporal.state.fail) refused += 1;
          return temporal.runs.deliverEvent(paymentId, event);
        },
      },
    };
    temporal.state.fail = true;
    const relay = relayFor(counting, { pollIntervalMs: 60_000, maxBackoffMs: 400 });
    relay.start();
    const payments = await Promise.all(Array.from({ length: 3 }, () => payment()));
    for (const p of payments) await send(p, [OK, CANCEL]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // 1.5 s of backoff capped at 0.4 s, one signal per payment head per round: a handful of rounds, not a busy loop.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(30);
    expect(temporal.delivered).toEqual([]);

    temporal.state.fail = false;
    await eventually(() => expect(temporal.delivered).toHaveLength(6), 5_000);
    for (const p of payments) expect(deliveredTo(temporal, p)).toHaveLength(2);
    expect(logLines.some((l) => l.includes('settlement workflows cannot take events'))).toBe(true);
    expect(logLines.some((l) => l.includes('deliveries succeed again'))).toBe(true);
  });
});
