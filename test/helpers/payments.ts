/**
 * A test app for the payment routes. Until src/app.ts mounts them, this builds
 * them the way src/app.ts would (JSON body, session authentication, the error
 * middleware) on top of createTestApp's database; users sign up through t.app.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { createSessionCache } from '../../src/auth/session-cache';
import { createSessionService } from '../../src/auth/sessions';
import { createLogger } from '../../src/http/logger';
import type { Api } from '../../src/http/route';
import { createPaymentProvider, type PaymentProvider } from '../../src/payments/providers';
import { paymentRoutes } from '../../src/payments/routes';
import { createPaymentService } from '../../src/payments/service';
import { storeOrderPayments } from '../../src/store';
import type { ActivationRuns } from '../../src/activations/runs';
import type { PaymentRuns } from '../../src/payments/runs';
import type { SignalSender } from '../../src/workflow-signals/kinds';
import { createWorkflowSignals } from '../../src/workflow-signals/outbox';
import { createRouteTestApp } from './api';
import { bearer, createTestApp, signUp, type TestApp } from './app';
import { insertActivation, seedCatalog, type ActivationFixture } from './read-app';

/** Records the "order paid" signals and the settlement starts; `state` makes them fail. */
export function fakePaymentTemporal() {
  const orderPaid: Array<{ activationId: string; paymentId: string }> = [];
  const settlements: string[] = [];
  const state = { failOrderPaid: false, failSettlement: false };
  const activationRuns: ActivationRuns = { async start() {} };
  // "Order paid" reaches the run as a pending signal (src/workflow-signals), sent at once after the commit.
  const signalSender: SignalSender = ({ workflowId, signal, args }) => {
    if (state.failOrderPaid) return Promise.reject(new Error('Temporal unavailable'));
    if (signal === 'orderPaid') orderPaid.push({ activationId: workflowId.replace(/^activation:/, ''), paymentId: String(args.paymentId) });
    return Promise.resolve('signalled');
  };
  const paymentRuns: PaymentRuns = {
    startSettlement(paymentId) {
      if (state.failSettlement) return Promise.reject(new Error('Temporal unavailable'));
      settlements.push(paymentId);
      return Promise.resolve();
    },
    async deliverEvent() {},
  };
  return { activationRuns, signalSender, paymentRuns, orderPaid, settlements, state };
}

export interface PaymentsTestApp {
  t: TestApp;
  /** The payment routes (plus nothing else), like src/app.ts would serve them. */
  app: Express;
  temporal: ReturnType<typeof fakePaymentTemporal>;
  registry: Api['registry'];
  logLines: string[];
  close(): Promise<void>;
}

export async function createPaymentsTestApp(
  opts: { env?: Record<string, string>; provider?: PaymentProvider; pendingWaitMs?: number } = {},
): Promise<PaymentsTestApp> {
  const temporal = fakePaymentTemporal();
  const t = await createTestApp({ env: opts.env, deps: { activationRuns: temporal.activationRuns, signalSender: temporal.signalSender } });
  await seedCatalog(t);
  const logLines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  const cache = createSessionCache({ pool: t.db.pool, ttlMs: 0 });
  const sessions = createSessionService({ db: t.db.sql, clock: t.clock, config: t.config, cache });
  const payments = createPaymentService({
    db: t.db.sql,
    provider: opts.provider ?? createPaymentProvider(t.config),
    paymentRuns: temporal.paymentRuns,
    signals: createWorkflowSignals({ db: t.db.sql, send: temporal.signalSender, logger }),
    storeOrderPayments,
    clock: t.clock,
    logger,
    pendingWaitMs: opts.pendingWaitMs,
  });
  const routes = createRouteTestApp(t, { logger, sessions, register: (api) => paymentRoutes(api, { payments }) });
  return {
    t,
    app: routes.app,
    temporal,
    registry: routes.api.registry,
    logLines,
    async close() {
      routes.stop();
      await cache.stop();
      await t.close();
    },
  };
}

/** A signed-up user with a bearer header. */
export async function payer(p: PaymentsTestApp) {
  const user = await signUp(p.t);
  return { ...user, auth: bearer(user.token) };
}

/** An order in `pending_payment` (with its activation) for the user, written with SQL. */
export async function pendingOrder(p: PaymentsTestApp, userId: string, order: ActivationFixture['order'] = {}) {
  return insertActivation(p.t, { userId, order: { status: 'pending_payment', ...order } });
}

export const post = (p: PaymentsTestApp, path: string, auth: Record<string, string>, body: object, lang?: string) => {
  const req = request(p.app).post(path).set(auth);
  if (lang) req.set('Accept-Language', lang);
  return req.send(body);
};

export const getReceipt = (p: PaymentsTestApp, paymentId: string, auth: Record<string, string>, lang?: string) => {
  const req = request(p.app).get(`/payments/${paymentId}/receipt`).set(auth);
  if (lang) req.set('Accept-Language', lang);
  return req;
};

let keyCounter = 0;
/** A fresh idempotency key (8-128 characters). */
export function newKey(label = 'key'): string {
  keyCounter += 1;
  return `${label}-${process.pid}-${keyCounter}-${Math.random().toString(36).slice(2, 10)}`;
}

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
}

/** A stand-in for the processor's API on 127.0.0.1: records requests, answers like the PaymentIntent protocol. */
export async function fakeProcessor() {
  const seen: Seen[] = [];
  /** What a retrieve of pi_test_123 answers as the intent's status (a test may say `canceled`). */
  const intent = { status: 'succeeded' };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, form });
      const reply = (status: number, body: object) => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': 'req_test' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/v1/payment_intents') {
        if (form.payment_method === 'pm_card_declined') {
          return reply(402, {
            error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'insufficient_funds',
              message: 'Your card has insufficient funds.',
            },
          });
        }
        if (form.payment_method === 'pm_server_error') return reply(500, { error: { type: 'api_error', message: 'boom' } });
        const confirmed = form.confirm === 'true';
        return reply(200, {
          id: 'pi_test_123',
          object: 'payment_intent',
          amount: Number(form.amount),
          amount_received: confirmed ? Number(form.amount) : 0,
          currency: form.currency,
          status: confirmed ? 'succeeded' : 'requires_payment_method',
          client_secret: 'pi_test_123_secret_abc',
          metadata: { payment_id: form['metadata[payment_id]'], order_id: form['metadata[order_id]'], user_id: form['metadata[user_id]'] },
          last_payment_error: null,
        });
      }
      if (req.method === 'GET' && req.url?.startsWith('/v1/payment_intents/pi_test_123')) {
        return reply(200, {
          id: 'pi_test_123',
          object: 'payment_intent',
          amount: 4900,
          amount_received: intent.status === 'succeeded' ? 4900 : 0,
          currency: 'sar',
          status: intent.status,
          client_secret: 'pi_test_123_secret_abc',
          metadata: { payment_id: 'p', order_id: 'o', user_id: 'u' },
        });
      }
      return reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, intent, baseUrl: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
