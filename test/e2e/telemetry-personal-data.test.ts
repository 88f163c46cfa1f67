/**
 * Issue 31: "No personal data in any span: URL attributes without the query string, no phone, e-mail, id
 * number, name, code or token in any attribute (a test reads every span of a journey from an in-process
 * receiver and looks for them)."
 *
 * The compiled API and worker, every trace kept and sent as OTLP JSON to a receiver here; SMS, identity
 * and the operators over HTTP to the local profile's stand-in (compose/local-stub.mjs), so provider calls
 * make client spans too. The journey: the consumer, B2B and eSIM store walks of `npm run demo`, then the
 * staff searches the security review named (`GET /admin/users?phone=…&search=<name>`,
 * `GET /b2b/roster?search=<phone>`). Every request goes through a recording proxy here: what the people
 * sent (phones, names, e-mails, id numbers, codes) and what they were given (tokens) are the needles;
 * every span's name, attributes, events and links, and every resource, are the haystack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runDemo } from '../../src/cli/demo';
import { runB2bDemo } from '../../src/cli/demo-b2b';
import { runStoreDemo } from '../../src/cli/demo-store';
import { demoPhone } from '../../src/cli/demo-steps';
import { seedStoreStandIns } from '../../src/store/stand-ins';
import { eventually } from '../helpers/app';
import { compiledProcesses, freePort, stopProcess } from '../helpers/processes';
import { DIST, openStackFixture, startApi, type StackFixture } from '../helpers/stack';
import { REPO_ROOT } from '../helpers/temporal';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let stub: ChildProcess;
let receiver: Server;
let proxy: Server;
let proxyUrl: string;
/** Every OTLP body the processes sent. */
const received: OtlpJson[] = [];
/** Every request and answer body, and bearer token, the walks exchanged with the API. */
const exchanged: Array<{ request: unknown; answer: unknown; bearer?: string }> = [];

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpJson {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        name: string;
        attributes?: OtlpAttribute[];
        events?: Array<{ name: string; attributes?: OtlpAttribute[] }>;
        links?: Array<{ attributes?: OtlpAttribute[] }>;
        status?: { message?: string };
      }>;
    }>;
  }>;
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') received.push(JSON.parse(body) as OtlpJson);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const stubPort = await freePort();
  const stubUrl = `http://127.0.0.1:${stubPort}`;
  stack = await openStackFixture('e2e-telemetry-personal-data', {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    FEATURE_ESIM_STORE: 'true',
    MOCK_STORE_CALLBACK_DELAY: '200ms',
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: `${stubUrl}/sms`,
    IDENTITY_PROVIDER: 'http',
    IDENTITY_HTTP_URL: `${stubUrl}/identity`,
    OPERATOR_PROVIDER: 'http',
    OPERATOR_HTTP_ENDPOINTS: `mock:esim=${stubUrl}/operators/mock,mock-noesim=${stubUrl}/operators/mock-noesim`,
    MESSAGE_RELAY_POLL_SECONDS: '1',
  });
  stub = spawn(process.execPath, [path.join(REPO_ROOT, 'compose/local-stub.mjs')], {
    env: { PATH: process.env.PATH, PORT: String(stubPort), MESSAGES_FILE: stack.messagesFile, IDENTITY_DELAY_MS: '200' },
    stdio: 'ignore',
  });
  await eventually(async () => expect((await fetch(`${stubUrl}/healthz`)).status).toBe(200), 10_000);
  await stack.db.sql.transaction((tx) => seedStoreStandIns(tx));
  const apiUrl = await startApi(stack, processes);
  processes.start('worker/main.js', { ...stack.common, MOCK_STORE_CALLBACK_URL: `${apiUrl}/webhooks/esim-provider` }, 'worker');
  proxy = recordingProxy(new URL(apiUrl));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await processes.stopAll();
  if (stub) await stopProcess(stub);
  await Promise.all([proxy, receiver].map((s) => s && new Promise((resolve) => s.close(resolve))));
  await stack?.close();
});

/** Forwards to the API, keeping each request's and answer's JSON body and bearer token. */
function recordingProxy(api: URL): Server {
  return createServer((req, res) => {
    const sent: Buffer[] = [];
    req.on('data', (chunk: Buffer) => sent.push(chunk));
    req.on('end', () => {
      const upstream = httpRequest(
        { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const answered: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answered.push(chunk));
          answer.on('end', () => {
            const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
            exchanged.push({ request: parse(Buffer.concat(sent).toString()), answer: parse(Buffer.concat(answered).toString()), bearer });
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(answered));
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(Buffer.concat(sent));
    });
  });
}

/** Keys whose string values a person sends about themselves or others. */
const SENT = /^(phone|newPhone|mobileNumber|email|name|idNumber|otp|code)$/;
/** Keys whose string values are secrets a person is given. */
const GIVEN = /^(token|refreshToken)$/;

/** Every string under a key `keys` matches in `value`, at any depth. */
function valuesUnder(keys: RegExp, value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => valuesUnder(keys, item, found));
  else if (value && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === 'string' && keys.test(key) && field.length >= 4) found.add(field);
      else valuesUnder(keys, field, found);
    }
  }
  return found;
}

/** Everything a span carries as text: its name, status, attributes, events' and links' attributes, its resource. */
function spanTexts(): string[] {
  const texts: string[] = [];
  const attributes = (list?: OtlpAttribute[]) => (list ?? []).map((a) => `${a.key}=${JSON.stringify(a.value)}`);
  for (const body of received) {
    for (const rs of body.resourceSpans ?? []) {
      texts.push(...attributes(rs.resource?.attributes));
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          texts.push(span.name, span.status?.message ?? '', ...attributes(span.attributes));
          for (const event of span.events ?? []) texts.push(event.name, ...attributes(event.attributes));
          for (const link of span.links ?? []) texts.push(...attributes(link.attributes));
        }
      }
    }
  }
  return texts;
}

/** A value as it may appear in a span: as sent, URL-encoded, a phone without its +. */
const spellings = (value: string) => [...new Set([value, encodeURIComponent(value), value.replace(/^\+/, ''), value.replace(/ /g, '+')])];
/** Not part of a longer token: a 6-digit code inside a longer number or an id is not the code. */
const standsAlone = (text: string, needle: string) =>
  new RegExp(`(?<![0-9A-Za-z])${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`).test(text);

it('exports the spans of a whole journey without anything personal in them', async () => {
  const log = () => undefined;
  await runDemo({ baseUrl: proxyUrl, messagesFile: stack.messagesFile, log });
  await runB2bDemo({ baseUrl: proxyUrl, messagesFile: stack.messagesFile, databaseUrl: stack.databaseUrl, log });
  await runStoreDemo({ baseUrl: proxyUrl, messagesFile: stack.messagesFile, log });
  // The staff searches whose query strings carried people into the collector (authorized or not, the
  // server span is made).
  const staffToken = exchanged.map((e) => e.bearer).find(Boolean);
  const phone = demoPhone();
  const search = `Noura Qahtani ${phone.slice(-4)}`;
  for (const route of [
    `/admin/users?phone=${encodeURIComponent(phone)}`,
    `/admin/users?search=${encodeURIComponent(search)}`,
    `/b2b/roster?search=${encodeURIComponent(phone)}`,
  ]) {
    const res = await fetch(`${proxyUrl}${route}`, { headers: { authorization: `Bearer ${staffToken}`, 'x-client-type': 'mobile' } });
    expect(res.status).toBeLessThan(500);
    exchanged.push({ request: { phone, name: search }, answer: undefined });
  }

  // Everything the processes had ended is exported within the batch delay.
  const apiRequests = exchanged.length;
  await eventually(() => {
    const names = spanTexts();
    expect(names.some((n) => n.startsWith('GET /admin/users'))).toBe(true);
    expect(names.some((n) => n.startsWith('RunActivity:'))).toBe(true);
  }, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  const needles = new Set<string>();
  for (const e of exchanged) {
    valuesUnder(SENT, e.request, needles);
    valuesUnder(GIVEN, e.answer, needles);
    if (e.bearer) needles.add(e.bearer);
  }
  // The walks did send people's data, and the provider calls did make spans.
  expect(apiRequests).toBeGreaterThan(50);
  expect([...needles].filter((n) => n.startsWith('+966')).length).toBeGreaterThan(3);
  expect([...needles].some((n) => n.includes('@'))).toBe(true);
  const texts = spanTexts();
  expect(texts.filter((t) => t.startsWith('url.full=') && t.includes('/identity/verifications')).length).toBeGreaterThan(0);

  const leaks = [...needles].flatMap((needle) =>
    spellings(needle).flatMap((spelling) => texts.filter((text) => standsAlone(text, spelling)).map((text) => ({ needle, text }))),
  );
  expect(leaks).toEqual([]);
});
