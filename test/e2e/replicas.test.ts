/**
 * Issue 22, done when: "An end-to-end test runs two API processes and two workers against one
 * Postgres and one Temporal server, drives the consumer and B2B walks through both APIs alternately,
 * kills one worker mid-walk, and checks: every walk completes, the rate limit and session revocation
 * hold across replicas, each webhook settles once, and the traces of one activation show the API
 * span and its workflow and activity spans under one trace id (read from an in-process OTLP receiver
 * or exporter the test starts)."
 *
 * The walks go through a round-robin proxy in this process (each request to the other API than the
 * one before); the consumer walk is `npm run demo`'s, the B2B walk `npm run demo -- --b2b`'s, and a
 * third walk pays by mobile wallet, whose approval is a webhook delivered twice (once per API). The
 * processes export their spans to an OTLP/HTTP receiver here and serve /metrics on their own ports.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import type { z } from 'zod';
import type { SignInResponse } from '../../src/auth/schemas';
import { runDemo, type DemoResult } from '../../src/cli/demo';
import { runB2bDemo, type B2bDemoResult } from '../../src/cli/demo-b2b';
import { createDemoClient } from '../../src/cli/demo-client';
import { awaitActivated, createActivation, demoPhone, verifyIdentity, verifyOtp } from '../../src/cli/demo-steps';
import { REQUIRED_CONSENT_TYPES } from '../../src/entities/consent';
import type { MobileWalletResult } from '../../src/payments/schemas';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { paymentWorkflowId } from '../../workflows/contracts/settlement-contract';
import { DEMO } from '../helpers/activations';
import { eventually } from '../helpers/app';
import { compiledProcesses, freePort, mobileCall, stopProcess } from '../helpers/processes';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';
import { parsePrometheusText, samplesOf } from '../helpers/prometheus';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(150_000);

const processes = compiledProcesses(DIST);
const RATE_LIMIT_MAX = 60;
let stack: StackFixture;
let receiver: OtlpReceiver;
/** The identity provider, over HTTP: its calls are the worker's outbound client spans. */
let identity: HttpStub;
const apis: Array<{ url: string; metricsPort: number }> = [];
const workers: Array<{ child: ChildProcess; metricsPort: number }> = [];
const proxies: Server[] = [];
/** Every JSON line the APIs wrote (they log at info). */
const apiLines: Array<Record<string, unknown>> = [];

// --- An OTLP/HTTP (JSON) receiver: the spans every process exports ------------------------------

interface ReceivedSpan {
  service: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}
interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpJson {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{
      spans?: Array<{
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: Array<{ key: string; value: Record<string, unknown> }>;
      }>;
    }>;
  }>;
}

async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        for (const rs of (JSON.parse(body) as OtlpJson).resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])),
              });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// --- A round-robin proxy: each request to the other API ------------------------------------------

/** Forwards each request to the next API in turn; `clientIp` goes in X-Forwarded-For (the APIs trust loopback). */
async function alternating(clientIp: string): Promise<string> {
  let next = 0;
  const server = createServer((req, res) => {
    const target = new URL(apis[next++ % apis.length].url);
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': clientIp },
      },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxies.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// --- The stack ---------------------------------------------------------------------------------

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  identity = await startHttpStub((req) =>
    req.method === 'POST'
      ? { status: 200, body: { transactionId: randomUUID(), randomCode: '42' } }
      : { status: 200, body: { status: 'completed' } },
  );
  stack = await openStackFixture('e2e-replicas', {
    // Every trace kept, sent as OTLP JSON to the receiver here.
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    IDENTITY_PROVIDER: 'http',
    IDENTITY_HTTP_URL: `${identity.url}/identity`,
    METRICS_ENABLED: 'true',
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
    // Long enough that a revoked session would still be served from a replica's memory without the eviction.
    SESSION_CACHE_SECONDS: '60',
  });
  for (let i = 0; i < 2; i++) {
    const metricsPort = await freePort();
    const child = processes.start('worker/main.js', { ...stack.common, WORKER_METRICS_PORT: String(metricsPort) }, `worker-${i}`);
    workers.push({ child, metricsPort });
  }
  for (let i = 0; i < 2; i++) {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = processes.start(
      'src/main.js',
      { ...stack.common, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' },
      `api-${i}`,
    );
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (pending + chunk.toString()).split('\n');
      pending = parts.pop()!;
      for (const line of parts) if (line.startsWith('{')) apiLines.push(JSON.parse(line) as Record<string, unknown>);
    });
    apis.push({ url: `http://127.0.0.1:${port}`, metricsPort });
  }
  for (const api of apis) await eventually(async () => expect((await fetch(`${api.url}/readyz`)).status).toBe(200), 30_000);
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => new Promise((resolve) => p.close(resolve))));
  await processes.stopAll();
  await receiver?.close();
  await identity?.close();
  await stack?.close();
});

// --- The walks -----------------------------------------------------------------------------------

interface WalletResult {
  activationId: string;
  orderId: string;
  paymentId: string;
  status: string;
}

/** A consumer who pays by mobile wallet: the approval is a webhook, delivered by both APIs. */
async function walletWalk(baseUrl: string, lines: string[]): Promise<WalletResult> {
  const c = createDemoClient({ baseUrl, messagesFile: stack.messagesFile, log: (line) => lines.push(line) });
  const phone = demoPhone();
  const since = new Date();
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  await c.call('POST', '/auth/register', { phone, name: 'Wallet User', consents });
  const { token } = await verifyOtp(c, phone, since);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  await verifyIdentity(c, token, activationId);
  const payment = await c.call<z.infer<typeof MobileWalletResult>>(
    'POST',
    '/payments/mobile-wallet',
    { orderId, mobileNumber: '0512345678', idempotencyKey: randomUUID() },
    { token },
  );
  expect(payment).toMatchObject({ status: 'processing', redirectUrl: expect.any(String) as unknown });
  // The person approves in the wallet; the provider's event reaches both replicas (a redelivery).
  const redirect = new URL(payment.redirectUrl);
  for (const api of apis) expect((await fetch(`${api.url}${redirect.pathname}`)).status).toBe(200);
  const final = await awaitActivated(c, token, activationId);
  return { activationId, orderId, paymentId: payment.paymentId, status: final.status ?? '' };
}

let consumer: DemoResult;
let b2b: B2bDemoResult;
let wallet: WalletResult;

it('completes the consumer, B2B and mobile-wallet walks through both APIs alternately while a worker is killed mid-walk', async () => {
  const lines: string[] = [];
  const [consumerUrl, b2bUrl, walletUrl] = [
    await alternating('192.0.2.10'),
    await alternating('192.0.2.11'),
    await alternating('192.0.2.12'),
  ];
  const walks = Promise.all([
    runDemo({ baseUrl: consumerUrl, messagesFile: stack.messagesFile, log: (line) => lines.push(line) }),
    runB2bDemo({
      baseUrl: b2bUrl,
      messagesFile: stack.messagesFile,
      databaseUrl: stack.databaseUrl,
      temporalUiUrl: 'http://ui.test',
      log: (line) => lines.push(line),
    }),
    walletWalk(walletUrl, lines),
  ]);
  // Mid-walk: once the first activation's run exists, one worker dies (no shutdown, tasks in flight lost).
  await eventually(async () => {
    expect(
      (await stack.db.query("select 1 from workflow_starts where kind = 'activation' and started_at is not null limit 1")).length,
    ).toBe(1);
  }, 60_000);
  await stopProcess(workers[0].child, 'SIGKILL');

  [consumer, b2b, wallet] = await walks;
  expect([consumer.status, b2b.status, wallet.status]).toEqual(['activated', 'activated', 'activated']);
  // The walks did go to both replicas: each API logged requests of each walk's client.
  expect(lines.join('\n')).toMatch(/Done in [\d.]+s, \d+ requests: activation .* is activated/);
});

it('settles each webhook once: one inbox row per event, delivered once, the order paid by one signal', async () => {
  const inbox = await stack.db.query<{ event_id: string; status: string; payment_id: string }>(
    'select event_id, status, payment_id from webhook_inbox order by id',
  );
  expect(inbox.filter((r) => r.payment_id === wallet.paymentId)).toEqual([
    { event_id: `mock-wallet:${wallet.paymentId}`, status: 'delivered', payment_id: wallet.paymentId },
  ]);
  expect(inbox.filter((r) => r.status === 'pending')).toEqual([]);
  const [payment] = await stack.db.query<{ status: string }>('select status from payments where id = $1', [wallet.paymentId]);
  expect(payment.status).toBe('completed');
  const { EventType } = temporal.api.enums.v1;
  const signalsOf = async (workflowId: string) =>
    ((await stack.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [])
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
      .map((e) => e.workflowExecutionSignaledEventAttributes?.signalName);
  // The settlement run took the event once; the activation heard "paid" once (and of its verification, from the API).
  expect((await signalsOf(paymentWorkflowId(wallet.paymentId))).length).toBe(1);
  const heard = await signalsOf(activationWorkflowId(wallet.activationId));
  expect(heard.filter((name) => name === 'orderPaid')).toEqual(['orderPaid']);
  expect(heard).toContain('identityStarted');
});

it('holds the rate limit across replicas: the window is shared, not one per API', async () => {
  const ip = '198.51.100.23';
  const limited = (api: { url: string }) =>
    fetch(`${api.url}/auth/session`, { headers: { 'x-forwarded-for': ip, 'x-client-type': 'mobile' } }).then((r) => r.status);
  // RATE_LIMIT_MAX requests in all, half on each API: neither alone reached the limit.
  for (let i = 0; i < RATE_LIMIT_MAX; i++) expect(await limited(apis[i % 2])).toBe(401);
  // Each replica adds its counts to the shared counters every RATE_LIMIT_SYNC_MS (100 ms).
  await eventually(async () => expect([await limited(apis[0]), await limited(apis[1])]).toEqual([429, 429]), 5_000);
});

it('holds session revocation across replicas: a sign-out on one API ends the session on the other at once', async () => {
  const c = createDemoClient({ baseUrl: apis[0].url, messagesFile: stack.messagesFile, log: () => undefined });
  const phone = demoPhone();
  const since = new Date();
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  await c.call('POST', '/auth/register', { phone, name: 'Revoked User', consents });
  const { token } = await verifyOtp(c, phone, since);
  const session = () => mobileCall<z.infer<typeof SignInResponse>>(apis[1].url, 'GET', '/auth/session', undefined, token);
  expect((await session()).status).toBe(200); // now in API 2's session cache
  expect((await mobileCall(apis[0].url, 'POST', '/auth/logout', undefined, token)).status).toBe(200);
  await eventually(async () => expect((await session()).status).toBe(401), 2_000);
});

it("shows an activation's API span, its workflow span, its activity spans and the provider call under one trace id", async () => {
  const runId = activationWorkflowId(consumer.activationId);
  await eventually(() => {
    const runs = receiver.spans.filter((s) => s.name === 'RunWorkflow:activationWorkflow' && s.service === 'activation-sys-worker');
    // The run whose trace starts at the request that created the consumer's activation.
    const traces = runs.map((run) => receiver.spans.filter((s) => s.traceId === run.traceId));
    const trace = traces.find((spans) => spans.some((s) => s.service === 'activation-sys-api' && s.name === 'POST /activations'));
    expect(trace).toBeDefined();
    const byName = (name: string) => trace!.find((s) => s.name === name);
    const api = byName('POST /activations')!;
    const start = byName('StartWorkflow:activationWorkflow');
    const run = byName('RunWorkflow:activationWorkflow');
    const activities = trace!.filter((s) => s.name.startsWith('RunActivity:'));
    expect(api.service).toBe('activation-sys-api');
    expect(start).toMatchObject({ service: 'activation-sys-api' });
    expect(run).toMatchObject({ service: 'activation-sys-worker' });
    expect(activities.length).toBeGreaterThan(0);
    expect(activities.every((a) => a.service === 'activation-sys-worker')).toBe(true);
    expect(new Set(trace!.map((s) => s.traceId)).size).toBe(1);
    // Parent links: the run under the start, the start under the request's spans.
    expect(run!.parentSpanId).toBe(start!.spanId);
    expect(trace!.some((s) => s.spanId === start!.parentSpanId)).toBe(true);
    // The request's statements: client spans under it, named by statement, their text without values.
    const statements = trace!.filter((s) => s.attributes['db.system.name'] === 'postgresql' && s.service === 'activation-sys-api');
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((s) => s.kind === 3 && String(s.attributes['db.query.text']).length > 0)).toBe(true);
    expect(statements.some((s) => s.parentSpanId === api.spanId)).toBe(true);
    // The identity check's call to the provider: a client span under its activity, its context sent on.
    const calls = trace!.filter((s) => s.kind === 3 && String(s.attributes['url.full']).startsWith(identity.url));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.service).toBe('activation-sys-worker');
      expect(activities.map((a) => a.spanId)).toContain(call.parentSpanId);
      const received = identity.requests.filter((r) => r.headers.traceparent === `00-${call.traceId}-${call.spanId}-01`);
      expect(received).toHaveLength(1);
    }
    // The API's access line of that request names the same trace, beside its request id.
    const access = apiLines.find(
      (l) => (l.req as { method?: string; path?: string } | undefined)?.path === '/activations' && l.traceId === api.traceId,
    );
    expect(access).toMatchObject({
      req: { id: expect.any(String) as unknown, method: 'POST', path: '/activations' },
      res: { statusCode: 201 },
    });
  }, 15_000);
  expect(runId).toMatch(/^activation:/);
});

it('serves /metrics in Prometheus text format from both APIs and the surviving worker', async () => {
  for (const api of apis) {
    const families = parsePrometheusText(await (await fetch(`http://127.0.0.1:${api.metricsPort}/metrics`)).text());
    expect(samplesOf(families, 'http_server_request_duration_seconds_count', { http_route: '/activations' }).length).toBeGreaterThan(0);
  }
  const text = await (await fetch(`http://127.0.0.1:${workers[1].metricsPort}/metrics`)).text();
  const families = parsePrometheusText(text);
  expect(samplesOf(families, 'relay_backlog_rows', { queue: 'webhook_inbox' })).toEqual([
    { name: 'relay_backlog_rows', labels: { queue: 'webhook_inbox' }, value: 0 },
  ]);
  expect(samplesOf(families, 'relay_lag_seconds', { queue: 'webhook_inbox' })).toHaveLength(1);
  // The Temporal SDK's own metrics, through the runtime's Prometheus exporter.
  expect([...families.keys()].some((name) => name.startsWith('temporal_'))).toBe(true);
});
