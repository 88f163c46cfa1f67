// Test helpers for the webhook routes and the settlement workflow: a small Express app with
// only the webhook router (on a createTestApp database), a fake PaymentRuns, payment
// fixtures written with SQL, and signers for both providers. The card processor's header is
// made by the processor's own library (generateTestHeaderString), so we interoperate with it.
import { randomUUID, sign as rsaSign } from 'node:crypto';
import type { Express } from 'express';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import Stripe from 'stripe';
import request from 'supertest';
import { createLogger } from '../../src/http/logger';
import type { ProviderIntent } from '../../src/payments/providers';
import type { PaymentRuns, ProcessorEvent } from '../../src/payments/runs';
import type { StoreOrderReconciliation } from '../../src/store/callbacks';
import { webhookRoutes } from '../../src/webhooks/routes';
import { createRouteTestApp } from './api';
import { createTestApp, signUp, type TestApp } from './app';
import { iccid } from './activations';
import { halalasOfSar } from './money';
import { insertActivation, seedCatalog } from './read-app';
import { DEV_ESIM_PROVIDER_PRIVATE_KEY } from '../../src/store/providers/mock-callback';
import { createStoreOrderCallbacks } from '../../src/store/callbacks';
import { enqueueSignal } from '../../src/workflow-signals/repository';

/** Private half of the development eSIM provider key (src/store/providers/mock-callback.ts). */
export { DEV_ESIM_PROVIDER_PRIVATE_KEY };

/**
 * Records what was asked of Temporal, in the order each call was taken; `fail` makes calls throw
 * (Temporal away), `failEvents` refuses those event ids only, `delayMs` makes each delivery take
 * a random time up to it (so parallel deliveries finish out of order).
 */
export function fakePaymentRuns() {
  const delivered: Array<{ paymentId: string; event: ProcessorEvent }> = [];
  const started: string[] = [];
  const state = { fail: false, failEvents: new Set<string>(), delayMs: 0 };
  const runs: PaymentRuns = {
    startSettlement(paymentId) {
      if (state.fail) return Promise.reject(new Error('Temporal unavailable'));
      started.push(paymentId);
      return Promise.resolve();
    },
    async deliverEvent(paymentId, event) {
      if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * state.delayMs));
      if (state.fail || state.failEvents.has(event.eventId)) throw new Error('Temporal unavailable');
      delivered.push({ paymentId, event });
    },
  };
  return { runs, delivered, started, state };
}

/** Store orders by id; `fail` makes the handoff throw. */
export function fakeStoreOrders(known: string[] = []) {
  const enqueued: string[] = [];
  const state = { fail: false, known: new Set(known) };
  const storeOrders: StoreOrderReconciliation = {
    enqueue(callback) {
      if (state.fail) return Promise.reject(new Error('queue unavailable'));
      if (!state.known.has(callback.orderId)) return Promise.resolve('unknown_order');
      enqueued.push(callback.orderId);
      return Promise.resolve('enqueued');
    },
  };
  return { storeOrders, enqueued, state };
}

export interface WebhookTestApp {
  t: TestApp;
  app: Express;
  registry: OpenAPIRegistry;
  /** JSON log lines of the webhook logger. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The webhook routes alone, built as src/app.ts builds them. Database, config and clock come from
 * createTestApp. The card processor's events land in the inbox (webhook_inbox); tests relay them
 * with createInboxRelay where they need Temporal.
 */
export async function createWebhookTestApp(
  opts: { storeOrders?: StoreOrderReconciliation; env?: Record<string, string> } = {},
): Promise<WebhookTestApp> {
  const t = await createTestApp({ env: opts.env });
  await seedCatalog(t);
  const logLines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  // Webhooks need no session: the guard dependency is never called.
  const sessions = { authenticate: () => Promise.reject(new Error('webhooks are public')) };
  const routes = createRouteTestApp(t, {
    logger,
    sessions,
    register: (api) =>
      webhookRoutes(api, {
        db: t.db.sql,
        logger,
        clock: t.clock,
        config: t.config,
        // No launch: what a callback writes waits for the worker's relay (there is none here).
        storeOrders: opts.storeOrders ?? createStoreOrderCallbacks({ signals: { enqueue: enqueueSignal } }),
      }),
  });
  return {
    t,
    app: routes.app,
    registry: routes.api.registry,
    logLines,
    close: () => {
      routes.stop();
      return t.close();
    },
  };
}

// --- Payments ----------------------------------------------------------------------------------

export interface PaymentFixture {
  paymentId: string;
  orderId: string;
  userId: string;
  activationId: string;
  intentId: string;
  amount: string;
  currency: string;
}

/**
 * A user, an order with its activation, and a card-processor payment waiting on the processor.
 * `userId` reuses a user (signing up is the slow part).
 */
export async function insertPayment(
  t: TestApp,
  opts: {
    userId?: string;
    amount?: string;
    currency?: string;
    status?: string;
    simType?: 'physical' | 'esim';
    sameOrderAs?: PaymentFixture;
  } = {},
): Promise<PaymentFixture> {
  const userId = opts.sameOrderAs?.userId ?? opts.userId ?? (await signUp(t)).userId;
  const amount = opts.sameOrderAs?.amount ?? opts.amount ?? '49.00';
  const currency = opts.sameOrderAs?.currency ?? opts.currency ?? 'SAR';
  // A second payment of an existing order (another intent for the same order), or a new order with its activation.
  const { activationId, orderId } =
    opts.sameOrderAs ??
    (await insertActivation(t, {
      userId,
      iccid: opts.simType === 'esim' ? undefined : iccid(),
      simType: opts.simType,
      order: { totalAmountSar: amount },
    }));
  const paymentId = randomUUID();
  const intentId = `pi_${paymentId.replace(/-/g, '').slice(0, 24)}`;
  await t.db.query(
    `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
       gateway_transaction_id, client_secret, created_at, updated_at)
     values ($1, $2, $3, 'card_scheme_1', 'card_processor', $4, $5, $6, $7, $8, $9, $10, now(), now())`,
    [
      paymentId,
      orderId,
      userId,
      opts.status ?? 'processing',
      halalasOfSar(amount),
      currency,
      `idem-${paymentId}`,
      '0'.repeat(64),
      intentId,
      `${intentId}_secret`,
    ],
  );
  return { paymentId, orderId, userId, activationId, intentId, amount, currency };
}

export async function paymentRow(t: TestApp, paymentId: string) {
  return (await t.db.query<Record<string, unknown>>('select * from payments where id = $1', [paymentId]))[0];
}

/** Runs `fn` while every insert into webhook_events fails (the reconciliation store is down). */
export async function withWebhookEventsRefused<T>(t: TestApp, fn: () => Promise<T>): Promise<T> {
  await t.db.query(
    `create or replace function refuse_webhook_events() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`,
  );
  await t.db.query(
    `create trigger refuse_webhook_events before insert on webhook_events for each row execute function refuse_webhook_events()`,
  );
  try {
    return await fn();
  } finally {
    await t.db.query('drop trigger refuse_webhook_events on webhook_events');
  }
}

/** Runs `fn` while every insert into webhook_inbox fails (Postgres cannot keep the event). */
export async function withInboxRefused<T>(t: TestApp, fn: () => Promise<T>): Promise<T> {
  await t.db.query(
    `create or replace function refuse_webhook_inbox() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`,
  );
  await t.db.query(
    `create trigger refuse_webhook_inbox before insert on webhook_inbox for each row execute function refuse_webhook_inbox()`,
  );
  try {
    return await fn();
  } finally {
    await t.db.query('drop trigger refuse_webhook_inbox on webhook_inbox');
  }
}

export interface InboxRow {
  id: string;
  provider: string;
  event_id: string;
  payment_id: string;
  type: string;
  failure_message: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  /** Epoch milliseconds. */
  next_attempt_at: number;
  handled_at: number | null;
}

/** The inbox rows of a payment (or all), in arrival order. */
export async function inboxRows(t: TestApp, paymentId?: string): Promise<InboxRow[]> {
  return t.db.query<InboxRow>(
    `select i.id::text as id, provider, event_id, payment_id, type, failure_message, status, attempts, last_error,
            (extract(epoch from next_attempt_at) * 1000)::float8 as next_attempt_at,
            (extract(epoch from handled_at) * 1000)::float8 as handled_at
       from webhook_inbox i where ($1::uuid is null or payment_id = $1) order by i.id`,
    [paymentId ?? null],
  );
}

export async function webhookEvents(t: TestApp, where: { paymentId?: string; provider?: string } = {}) {
  return t.db.query<{
    provider: string;
    event_id: string;
    type: string;
    payment_id: string | null;
    outcome: string;
    detail: Record<string, unknown> | null;
  }>(
    `select provider, event_id, type, payment_id, outcome, detail from webhook_events
      where ($1::uuid is null or payment_id = $1) and ($2::text is null or provider = $2) order by created_at, event_id`,
    [where.paymentId ?? null, where.provider ?? null],
  );
}

// --- Card processor events ----------------------------------------------------------------------

export interface IntentOverrides {
  status?: string;
  amount?: number;
  amount_received?: number;
  currency?: string;
  metadata?: Record<string, string> | null;
  id?: string;
  last_payment_error?: { message: string } | null;
  [extra: string]: unknown;
}

let eventCounter = 0;
export function newEventId(): string {
  eventCounter += 1;
  return `evt_${process.pid}_${eventCounter}_${randomUUID().slice(0, 8)}`;
}

/** A processor event about the fixture's intent, matching it unless overridden. */
export function intentEvent(type: string, p: PaymentFixture, overrides: IntentOverrides = {}, eventId = newEventId()) {
  const minor = halalasOfSar(p.amount); // fixtures use 2-decimal currencies
  return {
    id: eventId,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: p.intentId,
        object: 'payment_intent',
        status:
          type === 'payment_intent.succeeded' ? 'succeeded' : type === 'payment_intent.canceled' ? 'canceled' : 'requires_payment_method',
        amount: minor,
        amount_received: type === 'payment_intent.succeeded' ? minor : 0,
        currency: p.currency.toLowerCase(),
        metadata: { payment_id: p.paymentId, order_id: p.orderId, user_id: p.userId },
        last_payment_error: null,
        ...overrides,
      },
    },
  };
}

/** The `Processor-Signature` header, made by the processor's own library. */
export function signCard(payload: string, opts: { secret: string; timestamp?: number }): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret, timestamp: opts.timestamp });
}

/** POSTs a payload exactly as signed (string, so the bytes are the signed bytes). */
export function postCardEvent(app: Express, payload: string, header: string | undefined) {
  const req = request(app).post('/webhooks/card-processor').set('Content-Type', 'application/json');
  if (header !== undefined) req.set('Processor-Signature', header);
  return req.send(payload);
}

/** Signs (test clock's now by default) and posts one event. */
export function sendCardEvent(w: WebhookTestApp, event: object, opts: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const timestamp = opts.timestamp ?? Math.floor(w.t.clock().getTime() / 1000);
  return postCardEvent(w.app, payload, signCard(payload, { secret: opts.secret ?? w.t.config.CARD_PROCESSOR_WEBHOOK_SECRET, timestamp }));
}

// --- eSIM provider callbacks --------------------------------------------------------------------

export function signEsim(
  fields: { orderId: string; merchantId: string; providerName: string },
  privateKey = DEV_ESIM_PROVIDER_PRIVATE_KEY,
): string {
  return rsaSign('sha256', Buffer.from(`${fields.orderId}.${fields.merchantId}.${fields.providerName}`, 'utf8'), privateKey).toString(
    'base64',
  );
}

/** A signed callback for our merchant; `overrides` replace fields after signing (tampering). */
export function esimCallback(
  orderId: string,
  opts: { merchantId?: string; status?: string; extra?: Record<string, unknown>; privateKey?: string } = {},
) {
  const fields = { orderId, merchantId: opts.merchantId ?? 'dev-merchant', providerName: 'esim_provider_1' };
  return { ...fields, status: opts.status ?? 'completed', signature: signEsim(fields, opts.privateKey), ...opts.extra };
}

// --- Processor lookups (settlement workflow) ----------------------------------------------------

/** The processor's side for lookups: intents by id, set by the test; counts calls. */
export function fakeProcessor() {
  const intents = new Map<string, ProviderIntent | null>();
  const calls: string[] = [];
  return {
    intents,
    calls,
    provider: {
      retrieveIntent(id: string) {
        calls.push(id);
        return Promise.resolve(intents.get(id) ?? null);
      },
    },
    /** The intent as the processor would answer for the fixture (succeeded and matching unless overridden). */
    set(p: PaymentFixture, overrides: Partial<ProviderIntent> = {}) {
      const minor = BigInt(halalasOfSar(p.amount));
      intents.set(p.intentId, {
        id: p.intentId,
        status: 'succeeded',
        amountMinor: minor,
        amountReceivedMinor: minor,
        currency: p.currency,
        metadata: { payment_id: p.paymentId, order_id: p.orderId, user_id: p.userId },
        ...overrides,
      });
    },
  };
}
