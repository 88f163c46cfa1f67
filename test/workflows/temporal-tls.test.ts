/**
 * Issue 22: "TLS settings for Temporal (server CA, client certificate and key, or an API key, and the
 * namespace)", tested "through a TLS endpoint on loopback in front of the dev server (its CLI has no TLS
 * flags), with a wrong CA refused". The endpoint (test/helpers/grpc-tls-proxy.ts) presents a certificate
 * our test CA signed for `temporal.test` only, so every client also needs TEMPORAL_TLS_SERVER_NAME; a
 * second endpoint requires a client certificate. Both sides are ours: the API's client
 * (connectTemporal) and the worker's NativeConnection (connectWithRetry), configured the same way.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Config } from '../../src/config';
import { connectTemporal, temporalConnectionOptions } from '../../src/temporal/connection';
import { connectWithRetry } from '../../worker/main';
import type { echoWorkflow } from '../fixtures/sleep-workflow';
import { makeCertificates, type TestCertificates } from '../helpers/certs';
import { startGrpcTlsProxy, type GrpcTlsProxy } from '../helpers/grpc-tls-proxy';
import { bundleWorkflows, createLocalEnv, testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
let certs: TestCertificates;
let tls: GrpcTlsProxy;
let mtls: GrpcTlsProxy;

beforeAll(async () => {
  certs = makeCertificates({ serverNames: ['temporal.test'], ip: false });
  env = await createLocalEnv();
  const server = { upstream: env.address, cert: certs.read(certs.serverCert), key: certs.read(certs.serverKey) };
  tls = await startGrpcTlsProxy(server);
  mtls = await startGrpcTlsProxy({ ...server, clientCa: certs.read(certs.ca) });
});

afterAll(async () => {
  await tls?.close();
  await mtls?.close();
  await env?.teardown();
  certs?.remove();
});

type TemporalSettings = Parameters<typeof connectTemporal>[0];

/** The configuration a deployment would set: the endpoint, our CA, and the name its certificate carries. */
function settings(address: string, extra: Partial<Config> = {}): TemporalSettings {
  return {
    NODE_ENV: 'test',
    TEMPORAL_PAYLOAD_KEYS: undefined,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TLS_CA_FILE: certs.ca,
    TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
    ...extra,
  };
}

/**
 * Whether the API's client reaches the frontend (what /readyz asks). A refused handshake only shows as
 * "Failed to connect before the deadline" after the client's 10 s connect timeout: 3 s is plenty on loopback.
 */
async function clientReady(config: TemporalSettings): Promise<void> {
  const temporal = connectTemporal(config);
  try {
    await Promise.race([
      temporal.ready(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('not connected within 3 s')), 3_000).unref()),
    ]);
  } finally {
    await temporal.connection.close().catch(() => undefined);
  }
}

/** Whether the worker's connection is made (it calls the frontend once); on failure, rejects with the TLS error. */
async function workerConnects(config: TemporalSettings): Promise<void> {
  try {
    const connection = await connectWithRetry(temporalConnectionOptions(config), { timeoutMs: 1_000 });
    await connection.close();
  } catch (err) {
    const cause = (err as Error).cause;
    throw new Error(`${(err as Error).message}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause: err });
  }
}

describe('Temporal over TLS', () => {
  it('with the CA and the server name, the API client starts a workflow that the worker runs, both through the TLS endpoint', async () => {
    const config = settings(tls.address);
    const temporal = connectTemporal(config);
    const connection = await connectWithRetry(temporalConnectionOptions(config), { timeoutMs: 10_000 });
    try {
      await temporal.ready();
      const taskQueue = uniqueTaskQueue('tls');
      const worker = await Worker.create({
        connection,
        taskQueue,
        workflowBundle: await bundleWorkflows(require.resolve('../fixtures/sleep-workflow')),
        dataConverter: testDataConverter,
      });
      const result = await worker.runUntil(
        temporal.client.workflow.execute<typeof echoWorkflow>('echoWorkflow', {
          taskQueue,
          workflowId: `tls-${taskQueue}`,
          args: ['over TLS'],
        }),
      );
      expect(result).toBe('over TLS');
      const paths = tls.calls.map((call) => call.path.split('/').pop());
      expect(paths).toEqual(expect.arrayContaining(['StartWorkflowExecution', 'PollWorkflowTaskQueue', 'RespondWorkflowTaskCompleted']));
    } finally {
      await temporal.connection.close();
      await connection.close();
    }
  });

  it('a wrong CA is refused, by the client and by the worker', async () => {
    const before = tls.calls.length;
    const wrong = settings(tls.address, { TEMPORAL_TLS_CA_FILE: certs.otherCa });
    await expect(clientReady(wrong)).rejects.toThrow();
    await expect(workerConnects(wrong)).rejects.toThrow(/could not connect to Temporal.*UnknownIssuer/);
    expect(tls.calls.length).toBe(before);
  });

  it('a certificate that does not name the address is refused unless TEMPORAL_TLS_SERVER_NAME names what it does', async () => {
    await expect(clientReady(settings(tls.address, { TEMPORAL_TLS_SERVER_NAME: undefined }))).rejects.toThrow();
    await expect(workerConnects(settings(tls.address, { TEMPORAL_TLS_SERVER_NAME: undefined }))).rejects.toThrow(/NotValidForName/);
    await expect(clientReady(settings(tls.address))).resolves.toBeUndefined();
  });

  it('mTLS: the client certificate and key are presented; without them the endpoint refuses', async () => {
    // TLS 1.3: the refusal arrives as the server's alert, or as the connection closing once the handshake is
    // over: closed, or (on a busy box, the client still writing) a broken pipe.
    await expect(clientReady(settings(mtls.address))).rejects.toThrow();
    await expect(workerConnects(settings(mtls.address))).rejects.toThrow(/CertificateRequired|connection closed|broken pipe/);
    const withCertificate = settings(mtls.address, { TEMPORAL_TLS_CERT_FILE: certs.clientCert, TEMPORAL_TLS_KEY_FILE: certs.clientKey });
    await clientReady(withCertificate);
    await workerConnects(withCertificate);
    expect(mtls.calls.length).toBeGreaterThanOrEqual(2);
    for (const call of mtls.calls) expect(call.clientCertificate).toBe('activation-sys-client');
  });

  it('an API key travels as Authorization: Bearer, with the namespace, from the client and the worker', async () => {
    const config = settings(tls.address, { TEMPORAL_API_KEY: 'test-api-key', TEMPORAL_NAMESPACE: 'default' });
    const before = tls.calls.length;
    const temporal = connectTemporal(config);
    try {
      await temporal.client.workflow.count(`WorkflowId = "none"`);
    } finally {
      await temporal.connection.close();
    }
    await workerConnects(config);
    const calls = tls.calls.slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) expect(call.authorization).toBe('Bearer test-api-key');
    expect(calls.find((call) => call.path.endsWith('/CountWorkflowExecutions'))?.namespace).toBe('default');
  });

  it('an unreadable certificate file stops start-up, naming the setting', () => {
    expect(() => temporalConnectionOptions(settings(tls.address, { TEMPORAL_TLS_CA_FILE: '/nonexistent/ca.pem' }))).toThrow(
      /TEMPORAL_TLS_CA_FILE: cannot read \/nonexistent\/ca.pem/,
    );
  });
});
