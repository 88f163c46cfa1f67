// The local profile's stand-in for the providers the API and worker call over HTTP, in production mode,
// so `docker compose --profile local up` runs the demo end to end on real programs (docs/configuration.md):
//   - SMS gateway       POST /sms                                 (SMS_HTTP_URL=http://stub:4010/sms)
//   - identity provider POST /identity/verifications, GET …/:id   (IDENTITY_HTTP_URL=http://stub:4010/identity)
//   - telecom operators POST /operators/:slug/{validate,activations,esim-profiles}
//   - card processor    the payment-intent calls the API makes (create, retrieve, cancel); each intent
//                       succeeds a second later and a signed payment_intent.succeeded goes to the API
//   - e-mail            mailpit (the SMTP catcher) tells /mailpit-webhook of each message
// Every SMS and e-mail is appended to MESSAGES_FILE in the demo's format ({ at, channel, to, purpose, text },
// the file `npm run demo -- --messages .data/compose/messages.jsonl` reads) and listed at GET / (a web inbox).
// Node's standard library only: the image is node:24.21.0-bookworm-slim with this file mounted.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

const PORT = Number(process.env.PORT ?? 4010);
// Every interface in compose (the services reach it by name); tests give loopback.
const HOST = process.env.HOST ?? '0.0.0.0';
const MESSAGES_FILE = process.env.MESSAGES_FILE ?? '/messages/messages.jsonl';
const MAILPIT_URL = process.env.MAILPIT_URL ?? 'http://mailpit:8025';
const WEBHOOK_URL = process.env.CARD_PROCESSOR_WEBHOOK_URL ?? 'http://api:3000/webhooks/card-processor';
const WEBHOOK_SECRET = process.env.CARD_PROCESSOR_WEBHOOK_SECRET ?? '';
/** How long an identity verification waits, and a payment intent stays processing. */
const IDENTITY_DELAY_MS = Number(process.env.IDENTITY_DELAY_MS ?? 2000);
const PAYMENT_DELAY_MS = Number(process.env.PAYMENT_DELAY_MS ?? 1000);

const messages = [];
const verifications = new Map();
const intents = new Map();
const intentsByKey = new Map();

mkdirSync(path.dirname(MESSAGES_FILE), { recursive: true });

function record(channel, to, purpose, text) {
  const message = { at: new Date().toISOString(), channel, to, purpose, text };
  messages.push(message);
  if (messages.length > 500) messages.shift();
  appendFileSync(MESSAGES_FILE, `${JSON.stringify(message)}\n`);
}

const json = (res, status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const stripeError = (res, status, code, message) => json(res, status, { error: { type: 'invalid_request_error', code, message } });

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// --- Identity: a number ending in 1 is rejected, in 2 expires, anything else is confirmed (the mock's rule for 0). ---
function identityStatus(verification) {
  if (Date.now() - verification.startedAt < IDENTITY_DELAY_MS) return 'waiting';
  if (verification.idNumber.endsWith('1')) return 'rejected';
  if (verification.idNumber.endsWith('2')) return 'expired';
  return 'completed';
}

// --- Card processor: the payment-intent API's shapes, form-encoded requests (as its client library sends them). ---
function formToObject(text) {
  const out = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const nested = /^(\w+)\[(\w*)\]$/.exec(key);
    if (!nested) out[key] = value;
    else if (nested[2] === '') (out[nested[1]] ??= []).push(value);
    else (out[nested[1]] ??= {})[nested[2]] = value;
  }
  return out;
}

function sign(payload) {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${payload}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

async function sendEvent(type, intent) {
  const payload = JSON.stringify({
    id: `evt_local_${randomBytes(8).toString('hex')}`,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: intent },
  });
  // The API may still be starting: a few tries, as a processor redelivers.
  for (let attempt = 1; attempt <= 10; attempt++) {
    try {
      const res = await fetch(WEBHOOK_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Processor-Signature': sign(payload) },
        body: payload,
      });
      if (res.ok) return;
      console.error(`webhook ${type} answered ${res.status}`);
    } catch (err) {
      console.error(`webhook ${type} failed: ${err.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function createIntent(params, key) {
  if (key && intentsByKey.has(key)) return intents.get(intentsByKey.get(key));
  const id = `pi_local_${randomBytes(8).toString('hex')}`;
  const intent = {
    id,
    object: 'payment_intent',
    amount: Number(params.amount),
    amount_received: 0,
    currency: String(params.currency ?? 'sar').toLowerCase(),
    status: 'processing',
    client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
    metadata: params.metadata ?? {},
    last_payment_error: null,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
  };
  intents.set(id, intent);
  if (key) intentsByKey.set(key, id);
  setTimeout(() => {
    if (intent.status !== 'processing') return;
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    void sendEvent('payment_intent.succeeded', intent);
  }, PAYMENT_DELAY_MS);
  return intent;
}

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function inbox() {
  const rows = [...messages]
    .reverse()
    .map(
      (m) => `<tr><td>${escape(m.at)}</td><td>${escape(m.channel)}</td><td>${escape(m.to)}</td><td><pre>${escape(m.text)}</pre></td></tr>`,
    )
    .join('');
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>activation-sys: local messages</title>
<h1>SMS and e-mails sent</h1><p>E-mails in full: mailpit, <a href="http://127.0.0.1:8025">http://127.0.0.1:8025</a></p>
<table border="1" cellpadding="4"><tr><th>at</th><th>channel</th><th>to</th><th>text</th></tr>${rows}</table>`;
}

async function handle(req, res) {
  const url = new URL(req.url, 'http://stub');
  const route = `${req.method} ${url.pathname}`;
  let match;
  if (route === 'GET /healthz') return json(res, 200, { status: 'ok' });
  if (route === 'GET /') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(inbox());
  if (route === 'GET /messages') return json(res, 200, messages);
  if (route === 'POST /sms') {
    const sms = JSON.parse(await body(req));
    record('sms', sms.to, 'sms', sms.text);
    return json(res, 200, { messageId: sms.reference ?? randomUUID() });
  }
  if (route === 'POST /mailpit-webhook') {
    const summary = JSON.parse(await body(req));
    const message = await (await fetch(`${MAILPIT_URL}/api/v1/message/${encodeURIComponent(summary.ID)}`)).json();
    for (const to of message.To ?? []) record('email', to.Address, 'email', `${message.Subject}\n${message.Text}`);
    return json(res, 200, { received: true });
  }
  if (route === 'POST /identity/verifications') {
    const input = JSON.parse(await body(req));
    const transactionId = randomUUID();
    verifications.set(transactionId, { idNumber: String(input.idNumber ?? ''), startedAt: Date.now() });
    return json(res, 200, { transactionId, randomCode: String(10 + Math.floor(Math.random() * 90)) });
  }
  if (req.method === 'GET' && (match = /^\/identity\/verifications\/([\w-]+)$/.exec(url.pathname))) {
    const verification = verifications.get(match[1]);
    return verification ? json(res, 200, { status: identityStatus(verification) }) : json(res, 404, { error: 'unknown transaction' });
  }
  if (req.method === 'POST' && (match = /^\/operators\/([\w-]+)\/(validate|activations|esim-profiles)$/.exec(url.pathname))) {
    const input = JSON.parse((await body(req)) || '{}');
    if (match[2] === 'validate') return json(res, 200, { valid: true });
    if (match[2] === 'activations') return json(res, 200, { activated: true });
    const code = String(input.activationCode ?? input.activationId);
    return json(res, 200, { activationCode: code.startsWith('LPA:') ? code : `LPA:1$smdp.local$${code}` });
  }
  if (route === 'POST /v1/payment_intents') {
    return json(res, 200, createIntent(formToObject(await body(req)), req.headers['idempotency-key']));
  }
  if ((match = /^\/v1\/payment_intents\/([\w]+)(\/cancel)?$/.exec(url.pathname))) {
    await body(req);
    const intent = intents.get(match[1]);
    if (!intent) return stripeError(res, 404, 'resource_missing', `No such payment_intent: '${match[1]}'`);
    if (req.method === 'GET' && !match[2]) return json(res, 200, intent);
    if (req.method === 'POST' && match[2]) {
      if (intent.status === 'succeeded') return stripeError(res, 400, 'payment_intent_unexpected_state', 'already succeeded');
      intent.status = 'canceled';
      void sendEvent('payment_intent.canceled', intent);
      return json(res, 200, intent);
    }
  }
  return json(res, 404, { error: `no route ${route}` });
}

createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) json(res, 500, { error: err.message });
  });
}).listen(PORT, HOST, () => console.log(`local stub listening on ${HOST}:${PORT}; messages in ${MESSAGES_FILE}`));
