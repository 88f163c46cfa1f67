// What the webhook phase of the bench sends and settles (bench/webhook-burst.ts,
// webhook-burst/activation-latency.ts): its parameters, payment fixtures written with
// SQL, their activation workflows, signed processor events, and a keep-alive HTTP client.
import { createDb } from '../../src/db/sql';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import Stripe from 'stripe';
import type { Pool } from 'pg';
import type { Client } from '@temporalio/client';
import { seedDemoCatalog, DEMO } from '../../src/catalog/demo-seed';
import { loadConfig } from '../../src/config';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { activationWorkflowId, stateQuery } from '../../workflows/contracts/activation-contract';

export const TASK_QUEUE = 'bench-webhooks';
export const WEBHOOK_PATH = '/webhooks/card-processor';
/** Copies of each distinct event of one payment in a burst: 4 event ids, 10 deliveries. */
export const EVENT_COPIES = [4, 3, 2, 1];
export const DELIVERIES_PER_PAYMENT = EVENT_COPIES.reduce((a, b) => a + b, 0);
const AMOUNT_MINOR = 4900;
const CURRENCY = 'SAR';
/** How often activation workflows started here poll the (mock) identity provider. */
export const IDENTITY_POLL_SECONDS = 1;

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

export const PAYMENTS = 100;
export const DELIVERIES = PAYMENTS * DELIVERIES_PER_PAYMENT;
export const SETTLE_TIMEOUT_MS = 60_000;
export const HEALTHZ_PATH = '/healthz';
/** Budget: webhook acknowledgements per second at least this share of GET /healthz requests per second. */
export const ACK_BUDGET_RATIO = 0.25;
/** Temporal stays stopped this long after the outage burst's last acknowledgement (the relay retries meanwhile). */
export const OUTAGE_SECONDS = 3;
/** Fixture sets (ICCIDs apart): the burst, the latency series (paced, back to back), the outage burst. */
export const FIXTURE_SET = { burst: 1, latencyPaced: 2, outage: 3, latencyBackToBack: 4 } as const;

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

export interface PaymentFixture {
  paymentId: string;
  orderId: string;
  userId: string;
  activationId: string;
  intentId: string;
}

/**
 * Per payment a person (SIM limits count per person, so each activation may verify
 * and go live), an order, its item, a pending activation and a card-processor payment
 * in `processing`, columns as test/helpers/webhooks.ts insertPayment writes them.
 * `set` (0-99) keeps the ICCIDs of several fixture sets apart. One statement; ids
 * from PostgreSQL, returned in order.
 */
export async function insertFixtures(pool: Pool, count: number, set: number): Promise<PaymentFixture[]> {
  await seedDemoCatalog(createDb(pool)); // idempotent: the history phase may have seeded it
  const { rows } = await pool.query<{ payment_id: string; order_id: string; user_id: string; activation_id: string; intent_id: string }>(
    `with spec as materialized (
       select n, gen_random_uuid() as user_id, gen_random_uuid() as order_id, gen_random_uuid() as item_id,
              gen_random_uuid() as activation_id, gen_random_uuid() as payment_id,
              '89999' || lpad($6::text, 2, '0') || lpad(n::text, 12, '0') as iccid
         from generate_series(1, $1::int) n
     ), u as (
       insert into users (id, name, app_role, identity_type, is_active, created_at, updated_at)
       select user_id, 'Webhook bench user', 'end_user', 'citizen', true, now(), now() from spec
     ), o as (
       insert into orders (id, user_id, status, total_halalas, currency, created_at, updated_at)
       select order_id, user_id, 'pending_payment', $2::bigint, $3, now(), now() from spec
     ), i as (
       insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas)
       select item_id, order_id, $4, iccid, 1, $2::bigint from spec
     ), a as (
       insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, status,
                                identity_status, created_at, updated_at)
       select activation_id, order_id, item_id, user_id, $5, $4, iccid, 'physical', 'pending', 'waiting', now(), now() from spec
     ), p as (
       insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                             gateway_transaction_id, client_secret, created_at, updated_at)
       select payment_id, order_id, user_id, 'card_scheme_1', 'card_processor', 'processing', $2::bigint, $3, 'bench-' || payment_id,
              repeat('0', 64), 'pi_' || left(replace(payment_id::text, '-', ''), 24),
              'pi_' || left(replace(payment_id::text, '-', ''), 24) || '_secret', now(), now()
         from spec
     )
     select payment_id, order_id, user_id, activation_id, 'pi_' || left(replace(payment_id::text, '-', ''), 24) as intent_id
       from spec order by n`,
    [count, AMOUNT_MINOR, CURRENCY, DEMO.packages.starter, DEMO.operators.mock, set],
  );
  return rows.map((r) => ({
    paymentId: r.payment_id,
    orderId: r.order_id,
    userId: r.user_id,
    activationId: r.activation_id,
    intentId: r.intent_id,
  }));
}

/**
 * Starts every activation's workflow as the create route does (pending, unpaid;
 * identity never verified, so it stays pending), then asks each for its state: the
 * worker has run them all before the measurement starts.
 */
export async function startActivations(client: Client, payments: PaymentFixture[]): Promise<void> {
  const runs = activationRuns(client);
  await forEachConcurrently(payments, 10, (p) =>
    runs.start({ activationId: p.activationId, userId: p.userId, orderId: p.orderId, simType: 'physical' }),
  );
  await forEachConcurrently(payments, 10, async (p) => {
    const state = await client.workflow.getHandle(activationWorkflowId(p.activationId)).query(stateQuery);
    if (state.status !== 'pending' || state.paid)
      throw new Error(`activation ${p.activationId} is not pending and unpaid: ${JSON.stringify(state)}`);
  });
}

/** The API's side of the activation workflows, on the bench's task queue. */
export function activationRuns(client: Client) {
  return createActivationRuns(
    client,
    loadConfig({ NODE_ENV: 'test', TEMPORAL_TASK_QUEUE: TASK_QUEUE, IDENTITY_POLL_INTERVAL_SECONDS: String(IDENTITY_POLL_SECONDS) }),
  );
}

export async function forEachConcurrently<T>(
  items: T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) await fn(items[i], i);
    }),
  );
}

// ---------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------

export interface Delivery {
  payment: number;
  eventId: string;
  body: string;
  header: string;
}

/** A succeeded event about the payment's intent that passes all four settlement rules. */
export function succeededEvent(p: Pick<PaymentFixture, 'paymentId' | 'orderId' | 'userId' | 'intentId'>, eventId: string) {
  return {
    id: eventId,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: p.intentId,
        object: 'payment_intent',
        status: 'succeeded',
        amount: AMOUNT_MINOR,
        amount_received: AMOUNT_MINOR,
        currency: CURRENCY.toLowerCase(),
        metadata: { payment_id: p.paymentId, order_id: p.orderId, user_id: p.userId },
        last_payment_error: null,
      },
    },
  };
}

/** `Processor-Signature` for the raw body, made by the processor's own library. */
export function sign(body: string, secret: string): string {
  return Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: Math.floor(Date.now() / 1000) });
}

/**
 * All deliveries, signed, in sending order: payments in blocks that fill the
 * connections (5 payments at 50), each block shuffled, so all 10 deliveries of a
 * payment are in flight at about the same time.
 */
export function planDeliveries(payments: PaymentFixture[], secret: string, connections: number): Delivery[] {
  const perPayment = payments.map((p, payment) =>
    EVENT_COPIES.flatMap((copies, k) => {
      const eventId = `evt_bench_${payment}_${k}_${randomBytes(4).toString('hex')}`;
      const body = JSON.stringify(succeededEvent(p, eventId));
      return Array.from({ length: copies }, () => ({ payment, eventId, body, header: sign(body, secret) }));
    }),
  );
  const block = Math.max(1, Math.floor(connections / DELIVERIES_PER_PAYMENT));
  const order: Delivery[] = [];
  for (let i = 0; i < perPayment.length; i += block) order.push(...shuffle(perPayment.slice(i, i + block).flat()));
  return order;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** 200 with `{ received: true }` and not `ignored` (ignored: the route found no payment of ours). */
export function acknowledged(r: { status: number; body: string }): boolean {
  if (r.status !== 200) return false;
  try {
    const ack = JSON.parse(r.body) as { received?: unknown; ignored?: unknown };
    return ack.received === true && ack.ignored === undefined;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Load generation
// ---------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: string;
}

/** Keep-alive HTTP/1.1 to the API on at most `connections` sockets. */
export function httpClient(port: number, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const send = (method: string, urlPath: string, body?: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const allHeaders =
        body === undefined
          ? headers
          : { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
      const req = request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers: allHeaders }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}
