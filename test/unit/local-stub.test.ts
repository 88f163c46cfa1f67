/**
 * Issue 22: "a local profile whose stand-ins are real programs (… a small HTTP stub for SMS and identity)".
 * compose/local-stub.mjs (the compose `stub` service) as a real process, driven by our real adapters, as the
 * API and worker drive it in `docker compose --profile local up`: SMS, national identity, telecom operators
 * and the card processor (its intents succeed, and a signed payment_intent.succeeded reaches the webhook URL,
 * verified with the processor's library as the API verifies it); e-mails mailpit announces are fetched from
 * mailpit's API. Every SMS and e-mail lands in the messages file in the demo's format.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { createHttpIdentityProvider } from '../../src/identity/http';
import { createLogger } from '../../src/http/logger';
import { createHttpOperator } from '../../src/operators/http';
import { createCardProcessorProvider } from '../../src/payments/providers';
import { createHttpSmsSender } from '../../src/providers/sms-http';
import { eventually } from '../helpers/app';
import { startHttpStub, type HttpStub } from '../helpers/http-stub';
import { match } from '../helpers/match';
import { freePort, stopProcess } from '../helpers/processes';
import { REPO_ROOT } from '../helpers/temporal';

const SECRET = 'whsec_local_stub_test_0123456789abcdef';
let tmp: string;
let stub: ChildProcess;
let base: string;
let mailpit: HttpStub;
let webhook: Server;
const deliveries: Array<{ header: string; body: string }> = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'local-stub-'));
  mailpit = await startHttpStub(() => ({
    status: 200,
    body: { To: [{ Address: 'sara@example.com' }], Subject: 'Your sign-in link', Text: 'Open http://127.0.0.1:3000/link#token=abc' },
  }));
  webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      deliveries.push({ header: String(req.headers['processor-signature']), body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stub = spawn(process.execPath, [path.join(REPO_ROOT, 'compose/local-stub.mjs')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      MESSAGES_FILE: path.join(tmp, 'messages.jsonl'),
      MAILPIT_URL: mailpit.url,
      CARD_PROCESSOR_WEBHOOK_URL: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/webhooks/card-processor`,
      CARD_PROCESSOR_WEBHOOK_SECRET: SECRET,
      // Long enough that the first status read, right after the start, still finds it waiting on a busy CI box (200 ms did not).
      IDENTITY_DELAY_MS: '1500',
      PAYMENT_DELAY_MS: '100',
    },
    stdio: 'ignore',
  });
  await eventually(async () => expect((await fetch(`${base}/healthz`)).status).toBe(200), 10_000);
});

afterAll(async () => {
  await stopProcess(stub);
  await mailpit.close();
  await new Promise((resolve) => webhook.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

const logger = createLogger('silent');
const messagesFile = () =>
  readFileSync(path.join(tmp, 'messages.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { at: string; channel: string; to: string; text: string });

it('takes SMS as the SMS gateway does, and writes them where the demo reads codes', async () => {
  const sms = createHttpSmsSender({ url: `${base}/sms`, token: 'local', senderId: 'ActivSys', timeoutMs: 2_000, retries: 0, logger });
  await sms.send({
    channel: 'sms',
    to: '+966500000001',
    purpose: 'otp.login',
    text: 'Your activation-sys code is 123456.',
    content: { kind: 'otp', code: '123456', ttlSeconds: 300 },
  });
  expect(messagesFile()).toContainEqual(
    expect.objectContaining({ channel: 'sms', to: '+966500000001', text: match.stringContaining('123456') }),
  );
  expect(await (await fetch(`${base}/`)).text()).toContain('123456');
});

it('verifies an identity as the identity provider does: waiting, then completed', async () => {
  const identity = createHttpIdentityProvider({ url: `${base}/identity`, token: 'local', timeoutMs: 2_000, retries: 0, logger });
  const started = await identity.initiate({ idNumber: '1234567890', identityType: 'citizen', reference: 'a-1' });
  expect(started.randomCode).toMatch(/^\d+$/);
  expect(await identity.status(started.transId)).toBe('waiting');
  await eventually(async () => expect(await identity.status(started.transId)).toBe('completed'), 5_000);
});

it('validates, activates and issues eSIMs as a telecom operator does', async () => {
  const operator = createHttpOperator({
    slug: 'mock',
    baseUrl: `${base}/operators/mock`,
    supportsEsim: true,
    token: 'local',
    timeoutMs: 2_000,
  });
  expect(await operator.validateSerial('8996601234567890123', 'physical')).toEqual({ valid: true });
  await operator.activateSim({ iccid: '8996601234567890123', idempotencyKey: 'a-1' });
  expect((await operator.issueEsim({ activationCode: 'a-2', idempotencyKey: 'a-2' })).activationCode).toBe('LPA:1$smdp.local$a-2');
});

it('takes a payment as the card processor does: processing, then succeeded with a signed event to the webhook', async () => {
  const processor = createCardProcessorProvider({ apiKey: 'sk_test_local', apiBaseUrl: base, maxNetworkRetries: 0 });
  const metadata = { paymentId: '5d4a9c3e-1f2b-4c6d-8e7f-0a1b2c3d4e5f', orderId: '6e5b0d4f-2a3c-4d7e-9f80-1b2c3d4e5f60', userId: 'u-1' };
  const created = await processor.createIntent({
    ...metadata,
    amountMinor: 2_500n,
    currency: 'SAR',
    method: 'local_debit',
    idempotencyKey: 'demo-1',
  });
  expect(created).toMatchObject({ status: 'processing', gatewayTransactionId: match.stringMatching(/^pi_local_/) });
  await eventually(() => expect(deliveries).toHaveLength(1), 5_000);
  const event = Stripe.webhooks.constructEvent(deliveries[0].body, deliveries[0].header, SECRET);
  expect(event.type).toBe('payment_intent.succeeded');
  expect(event.data.object).toMatchObject({
    id: created.gatewayTransactionId,
    status: 'succeeded',
    amount: 2_500,
    amount_received: 2_500,
    currency: 'sar',
    metadata: { payment_id: metadata.paymentId, order_id: metadata.orderId, user_id: 'u-1' },
  });
  expect(await processor.retrieveIntent(created.gatewayTransactionId!)).toMatchObject({ status: 'succeeded', amountReceivedMinor: 2_500n });
  expect(await processor.retrieveIntent('pi_local_missing')).toBeNull();
});

it('writes the e-mails mailpit announces (fetched from its API) where the demo reads links', async () => {
  const res = await fetch(`${base}/mailpit-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ID: 'msg-1' }),
  });
  expect(res.status).toBe(200);
  expect(mailpit.requests.map((r) => r.path)).toEqual(['/api/v1/message/msg-1']);
  expect(messagesFile()).toContainEqual(
    expect.objectContaining({
      channel: 'email',
      to: 'sara@example.com',
      text: 'Your sign-in link\nOpen http://127.0.0.1:3000/link#token=abc',
    }),
  );
});
