/**
 * Issue 22: "metrics on a Prometheus endpoint (request rate, errors and duration per route ...). The
 * request id (and trace id) on every log line through async context". The API's side: the per-route
 * histogram read from the metrics listener (src/telemetry/metrics.ts) in Prometheus text format, by
 * route template and never by raw path; and a service log line written while a request runs carries
 * that request's id, each concurrent request its own. (The trace id beside it needs the HTTP
 * instrumentation, which patches Node's own modules: the workflow test and the e2e check it.)
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createMetricsRegistry, serveMetrics, type MetricsRegistry, type MetricsServer } from '../../src/telemetry/metrics';
import { createLogger } from '../../src/http/logger';
import { bearer, createTestApp, logEntries, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeActivationRuns, iccid, seedCatalog } from '../helpers/activations';
import { parsePrometheusText, samplesOf } from '../helpers/prometheus';

const activations = fakeActivationRuns();
activations.state.failStart = true;
let t: TestApp;
let registry: MetricsRegistry;
let metricsServer: MetricsServer;

beforeAll(async () => {
  registry = createMetricsRegistry({ serviceName: 'activation-sys-api-test' });
  t = await createTestApp({ deps: { activationRuns: activations.runs, meter: registry.meter } });
  await seedCatalog(t.db);
  metricsServer = await serveMetrics({ host: '127.0.0.1', port: 0, path: '/metrics', text: registry.text });
});

afterAll(async () => {
  await metricsServer?.close();
  await registry?.shutdown();
  await t?.close();
});

const scrape = async () => {
  const res = await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: await res.text() };
};

describe('GET /metrics (the metrics listener)', () => {
  it('answers the per-route request count, errors and duration in Prometheus text format, by route template', async () => {
    const quoteId = randomUUID();
    await request(t.app).get('/healthz').expect(200);
    await request(t.app).get('/healthz').expect(200);
    // A guarded route with a path parameter: 401 without a session.
    await request(t.app).get(`/b2b/quotes/${quoteId}`).expect(401);
    // No route at all: counted, under one label for every unmatched path.
    await request(t.app).get(`/no-such-page/${quoteId}`).expect(404);

    const { text } = await scrape();
    const families = parsePrometheusText(text);
    expect(families.get('http_server_request_duration_seconds')).toMatchObject({ type: 'histogram' });
    const count = (route: string, status: string) =>
      samplesOf(families, 'http_server_request_duration_seconds_count', {
        http_request_method: 'GET',
        http_route: route,
        http_response_status_code: status,
      }).reduce((sum, s) => sum + s.value, 0);
    expect(count('/healthz', '200')).toBe(2);
    expect(count('/b2b/quotes/:id', '401')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
    // The raw path (an id, maybe personal data) never becomes a label.
    expect(text).not.toContain(quoteId);
    const sums = samplesOf(families, 'http_server_request_duration_seconds_sum', { http_route: '/healthz' });
    expect(sums.every((s) => s.value >= 0 && s.value < 10)).toBe(true);
  });

  it('is not served by the API itself (its own listener, outside the rate limit and auth)', async () => {
    expect((await request(t.app).get('/metrics')).status).toBe(404);
  });

  it('answers 404 on any other path of the metrics listener', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsServer.port}/`)).status).toBe(404);
  });
});

describe('the request id on service log lines', () => {
  it('marks the lines a service writes during a request with that request id, each request its own', async () => {
    const { token } = await signUp(t);
    const ids = [`req-${randomUUID()}`, `req-${randomUUID()}`];
    // Two creates at once: each one's "start pending" line (written by the start launcher, after the
    // transaction) must carry its own request id, not the other's.
    const answers = await Promise.all(
      ids.map((id) =>
        request(t.app)
          .post('/activations')
          .set(bearer(token))
          .set('X-Request-Id', id)
          .send({ iccid: iccid(), packageId: DEMO.packages.starter }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    const entries = logEntries(t.logLines);
    for (const [i, id] of ids.entries()) {
      const workflowId = `activation:${(answers[i].body as { activationId: string }).activationId}`;
      const pending = entries.filter(
        (e) => e.msg === 'workflow start pending: the start relay will make it' && e.workflowId === workflowId,
      );
      expect(pending).toEqual([expect.objectContaining({ requestId: id })]);
      expect(entries.filter((e) => e.req?.id === id)).toHaveLength(1); // and its access line
    }
  });

  it('writes no request id on a line logged outside any request', () => {
    const lines: string[] = [];
    createLogger('info', { write: (line: string) => void lines.push(line) }).info({ a: 1 }, 'outside');
    expect(JSON.parse(lines[0])).not.toHaveProperty('requestId');
  });
});
