// No personal data in Temporal: an eSIM activation driven through the API (register with phone and
// e-mail, create, verify-identity with a real id number, pay) on the dev server, with the payload
// codec configured (TEMPORAL_PAYLOAD_KEYS) on the API's client and the worker. The history the server
// stores, read raw (no codec), holds neither the id number, nor the phone, nor the e-mail; the same
// history decodes with the codec, and there they are.
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import { randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createMemoryMessageSender, MessageDeliveryError, type MessageSender } from '../../src/providers/messages';
import { createActivationRuns } from '../../src/activations/runs-temporal';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { dataConverterFromConfig, ENCRYPTED_ENCODING, KEY_ID_METADATA_KEY, payloadCodecFromConfig } from '../../src/temporal/codec';
import { createPaymentRuns } from '../../src/payments/runs-temporal';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { DEMO, esimCode } from '../helpers/activations';
import { bearer, createTestApp, eventually, newPhone, signUp, type TestApp } from '../helpers/app';
import { seedCatalog } from '../helpers/read-app';
import { bundleWorkflows, createLocalEnv, uniqueTaskQueue } from '../helpers/temporal';
import { realActivities } from '../helpers/real-activities';

jest.setTimeout(120_000);

const ID_NUMBER = '1098765430';
const taskQueue = uniqueTaskQueue('payload-encryption');
const env = {
  NODE_ENV: 'test',
  TEMPORAL_TASK_QUEUE: taskQueue,
  TEMPORAL_PAYLOAD_KEYS: `it-1:${randomBytes(32).toString('base64')}`,
  IDENTITY_POLL_INTERVAL_SECONDS: '1',
} as const;
const config = loadConfig(env);
const codec = payloadCodecFromConfig(config);

/** The mail server turns the first message away for now (4xx), quoting the address as SMTP servers do; the retry goes through. */
function refusingOnce(): MessageSender & { refused: number } {
  const inner = createMemoryMessageSender();
  const sender = {
    refused: 0,
    send: (message: Parameters<MessageSender['send']>[0]) => {
      if (sender.refused > 0) return inner.send(message);
      sender.refused += 1;
      return Promise.reject(
        new MessageDeliveryError('email', `450 4.2.1 <${message.to}>: Recipient address rejected: try again later`, false),
      );
    },
  };
  return sender;
}

let temporalEnv: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;
const messages = refusingOnce();

beforeAll(async () => {
  [temporalEnv, bundle] = await Promise.all([
    createLocalEnv({
      server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) },
      client: { dataConverter: dataConverterFromConfig(config) },
    }),
    bundleWorkflows(require.resolve('../../workflows')),
  ]);
  t = await createTestApp({
    env,
    deps: {
      activationRuns: createActivationRuns(temporalEnv.client, config),
      paymentRuns: createPaymentRuns(temporalEnv.client, config),
      signalSender: temporalSignalSender(temporalEnv.client),
    },
  });
  await seedCatalog(t);
  worker = await Worker.create({
    connection: temporalEnv.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    dataConverter: dataConverterFromConfig(config),
    activities: realActivities(t.db, config, { messages }),
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await temporalEnv?.teardown();
  await t?.close();
});

/** The run's whole history as the server stores it: no data converter, no codec. */
async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await temporalEnv.client.workflowService.getWorkflowExecutionHistory({
      namespace: temporalEnv.namespace ?? 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

interface Found {
  path: string;
  payload: Payload;
}

/** Every Payload message anywhere in the events (inputs, results, failures' encoded attributes, search attributes…). */
function payloadsIn(node: unknown, path = ''): Found[] {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return [];
  const record = node as Record<string, unknown>;
  const metadata = record.metadata as Record<string, unknown> | undefined;
  if (metadata && typeof metadata === 'object' && metadata[METADATA_ENCODING_KEY] instanceof Uint8Array) {
    return [{ path, payload: record }];
  }
  return Object.entries(node).flatMap(([key, value]) => payloadsIn(value, `${path}.${key}`));
}

const encodingOf = (p: Payload) => Buffer.from(p.metadata![METADATA_ENCODING_KEY]).toString();

it('keeps the id number, phone and e-mail out of the raw history, and the codec reads back all but the id number, which never entered it', async () => {
  const phone = newPhone();
  const email = `sara.${Date.now()}@example.com`;
  const { token } = await signUp(t, { phone, email, name: 'Sara' });
  const created = await request(t.app)
    .post('/activations')
    .set(bearer(token))
    .send({ iccid: esimCode(), simType: 'esim', packageId: DEMO.packages.starter });
  expect(created.status).toBe(201);
  const { activationId, orderId } = created.body as { activationId: string; orderId: string };
  const verify = await request(t.app)
    .post(`/activations/${activationId}/verify-identity`)
    .set(bearer(token))
    .send({ identityType: 'citizen', idNumber: ID_NUMBER });
  expect(verify.status).toBe(200);
  await eventually(async () => {
    const res = await request(t.app).get(`/activations/${activationId}/verify-identity`).set(bearer(token));
    expect((res.body as { status: string }).status).toBe('completed');
  }, 20_000);
  const paid = await request(t.app)
    .post('/payments/create-intent')
    .set(bearer(token))
    .send({ orderId, method: 'local_debit', idempotencyKey: `enc-${activationId}` });
  expect([paid.status, (paid.body as { status: string }).status]).toEqual([201, 'completed']);

  const workflowId = activationWorkflowId(activationId);
  expect(await temporalEnv.client.workflow.getHandle(workflowId).result()).toBe('activated');
  expect(messages.refused).toBe(1); // the e-mail address went through a failure message once

  // 1. Raw: not one byte of the personal data, in any event (search attributes included).
  const events = await rawHistory(workflowId);
  const bytes = Buffer.from(temporal.api.history.v1.History.encode({ events }).finish());
  for (const secret of [ID_NUMBER, phone, phone.slice(1), email]) expect(bytes.includes(secret)).toBe(false);

  // Every payload our code wrote is encrypted with the configured key; only search attributes (which
  // Temporal indexes, so no codec touches them) are plain, and they hold ids and statuses only.
  const found = payloadsIn(events);
  const plain = found.filter((f) => encodingOf(f.payload) !== ENCRYPTED_ENCODING);
  expect(plain.length).toBeGreaterThan(0);
  // Left plain, and free of personal data: search attributes (ids and statuses) and the SDK's own
  // markers, written by the SDK core outside the data converter: a patch's id, and a local activity's
  // bookkeeping (its type, attempt and times; its result is under `details.result`, encrypted, and its
  // input is never recorded).
  const sdkOwn = /\.searchAttributes\.indexedFields\.|\.markerRecordedEventAttributes\.details\.(patch-data|data)\./;
  expect(plain.filter((f) => !sdkOwn.test(f.path))).toEqual([]);
  const encrypted = found.filter((f) => encodingOf(f.payload) === ENCRYPTED_ENCODING);
  expect(new Set(encrypted.map((f) => Buffer.from(f.payload.metadata![KEY_ID_METADATA_KEY]).toString()))).toEqual(new Set(['it-1']));
  // Where the data travelled: the verification's signal (the provider's reference only), activities' inputs, the refused e-mail's failure.
  expect(encrypted.some((f) => f.path.includes('workflowExecutionSignaledEventAttributes.input'))).toBe(true);
  expect(encrypted.some((f) => f.path.includes('workflowExecutionUpdateAcceptedEventAttributes'))).toBe(false);
  expect(encrypted.some((f) => f.path.includes('activityTaskScheduledEventAttributes.input'))).toBe(true);
  expect(encrypted.some((f) => f.path.includes('activityTaskStartedEventAttributes.lastFailure.encodedAttributes'))).toBe(true);
  expect(encrypted.some((f) => f.path.includes('markerRecordedEventAttributes.details.result'))).toBe(true); // the local startHandoff's

  // 2. The same history decodes with the codec, and the data is there; the id number never entered it
  // (issue 32: verify-identity records it in Postgres and tells the run the provider's reference only).
  const decoded = Buffer.concat((await codec.decode(encrypted.map((f) => f.payload))).map((p) => Buffer.from(p.data ?? [])));
  expect(decoded.includes(email)).toBe(true);
  expect(decoded.includes(ID_NUMBER)).toBe(false);
  // Without the key (another process's development key), it does not.
  await expect(
    payloadCodecFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: undefined }).decode([encrypted[0].payload]),
  ).rejects.toThrow(/key id "it-1"/);
});
