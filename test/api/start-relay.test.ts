/**
 * Issue 20, the start relay on a real database: "a relay that reads Postgres (not a Temporal schedule,
 * which is away too) starts what is pending as soon as Temporal answers ... every run starts exactly
 * once". Pending starts are written by the real routes while Temporal refuses, then made by the relay
 * through the same starters the worker builds, on fakes of the ports (Temporal itself:
 * test/e2e/temporal-outage.test.ts).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { activationStarter } from '../../src/activations/start';
import { createLogger } from '../../src/http/logger';
import type { StartActivation } from '../../src/activations/runs';
import { pendingStart, workflowStarters, type WorkflowStarters } from '../../src/workflow-starts/kinds';
import { createStartRelay, type StartRelay, type StartRelayOptions } from '../../src/workflow-starts/relay';
import { enqueueStart } from '../../src/workflow-starts/repository';
import { bearer, createTestApp, eventually, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeActivationRuns, iccid, seedCatalog } from '../helpers/activations';
import { fakeCompanyRuns } from '../helpers/company-routes';
import { createOneOfEach } from '../helpers/one-of-each';
import { fakeQuoteRuns } from '../helpers/quote-runs';

jest.setTimeout(30_000);

let t: TestApp;
/** What the ports were asked to start, in order (each kind's first argument); refused while `away`. */
const temporal = { away: true, delayMs: 0, started: [] as string[], activations: [] as StartActivation[] };
const activations = fakeActivationRuns();
const companies = fakeCompanyRuns(() => t.db);
const quotes = fakeQuoteRuns(() => t.db);
const relays: StartRelay[] = [];
const logLines: string[] = [];

async function take(workflowId: string): Promise<void> {
  if (temporal.delayMs) await new Promise((r) => setTimeout(r, Math.random() * temporal.delayMs));
  if (temporal.away) throw new Error('Temporal unavailable');
  temporal.started.push(workflowId);
}
activations.runs.start = async (a) => {
  await take(`activation:${a.activationId}`);
  temporal.activations.push(a);
};
companies.start = (companyId) => take(`company:${companyId}`);
quotes.start = (input) => take(`quote:${input.chainRootId}`);

/** The worker's starters (src/workflow-starts/relay.ts), on the fakes. */
const starters = (): WorkflowStarters =>
  workflowStarters({
    activation: activationStarter({ db: t.db.sql, runs: activations.runs, config: t.config }),
    companies,
    quotes,
    storeOrders: { start: ({ orderId }) => take(`store-order:${orderId}`) },
  });

function relay(opts: Partial<StartRelayOptions> = {}): StartRelay {
  const r = createStartRelay({
    db: t.db.sql,
    starters: starters(),
    logger: createLogger('info', { write: (line: string) => void logLines.push(line) }),
    batchSize: 50,
    pollIntervalMs: 60_000,
    maxBackoffMs: 10_000,
    ...opts,
  });
  relays.push(r);
  return r;
}

beforeAll(async () => {
  t = await createTestApp({ deps: { activationRuns: activations.runs, companyRuns: companies, quoteRuns: quotes } });
  await seedCatalog(t.db);
});
beforeEach(() => {
  temporal.away = true;
  temporal.delayMs = 0;
  temporal.started = [];
  temporal.activations = [];
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  // What one test leaves pending must not reach the next one's relay.
  await t.db.query('update workflow_starts set started_at = now() where started_at is null');
});
afterAll(() => t.close());

const pending = async () =>
  (await t.db.query<{ workflow_id: string }>('select workflow_id from workflow_starts where started_at is null order by id')).map(
    (r) => r.workflow_id,
  );

/** An activation, a company and a quote created through their routes while Temporal refuses: their workflow ids. */
const createWhileAway = async (): Promise<string[]> => (await createOneOfEach(t)).workflowIds;

describe('starting what is pending', () => {
  it('keeps the starts pending while Temporal refuses, then starts each once, as soon as it answers', async () => {
    const ids = await createWhileAway();
    expect(await pending()).toEqual(ids);
    const r = relay({ baseBackoffMs: 60_000, maxBackoffMs: 120_000 });

    expect(await r.drain()).toEqual({ claimed: 3, started: 0, failed: 3 });
    expect(await pending()).toEqual(ids);
    const [row] = await t.db.query<{ attempts: number; last_error: string; waits: boolean }>(
      'select attempts, last_error, next_attempt_at > now() as waits from workflow_starts where workflow_id = $1',
      [ids[0]],
    );
    expect(row).toEqual({ attempts: 2, last_error: 'Error: Temporal unavailable', waits: true });

    temporal.away = false;
    await t.db.query('update workflow_starts set next_attempt_at = now() where workflow_id = $1', [ids[0]]); // its backoff passed
    // The first success makes every start that waited on Temporal due at once, not after its own backoff.
    expect(await r.drain()).toEqual({ claimed: 3, started: 3, failed: 0 });
    expect(temporal.started.sort()).toEqual([...ids].sort());
    expect(await pending()).toEqual([]);
    expect(await r.drain()).toEqual({ claimed: 0, started: 0, failed: 0 });
  });

  it('leaves a new start to the request that wrote it for a few seconds', async () => {
    temporal.away = false;
    await t.db.sql.transaction((tx) => enqueueStart(tx, pendingStart.company(randomUUID())));
    const r = relay();
    expect(await r.relayOnce()).toMatchObject({ claimed: 0, nextDueInMs: expect.any(Number) as number });
    expect(temporal.started).toEqual([]);
  });

  it('two relays at once start each pending run exactly once', async () => {
    const ids = Array.from({ length: 24 }, () => randomUUID());
    await t.db.sql.transaction(async (tx) => {
      for (const id of ids) await enqueueStart(tx, pendingStart.company(id));
    });
    await t.db.query(`update workflow_starts set next_attempt_at = now() where started_at is null`);
    temporal.away = false;
    temporal.delayMs = 20;
    const [a, b] = [relay({ batchSize: 5 }), relay({ batchSize: 5 })];
    while ((await pending()).length > 0) await Promise.all([a.drain(), b.drain()]);
    expect(temporal.started.sort()).toEqual(ids.map((id) => `company:${id}`).sort());
  });
});

describe('a run started late', () => {
  /** An activation created through the route while Temporal refuses, then aged by `hours` (its rows and its pending start). */
  async function agedActivation(hours: number) {
    const { token } = await signUp(t);
    const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
    const { activationId, orderId } = res.body as { activationId: string; orderId: string };
    await t.db.query(`update workflow_starts set created_at = now() - make_interval(hours => $2) where workflow_id = $1`, [
      `activation:${activationId}`,
      hours,
    ]);
    return { activationId, orderId };
  }

  it('keeps the cancel deadline of its creation, and one past it is started to cancel at once', async () => {
    const young = await agedActivation(1);
    const old = await agedActivation(25);
    temporal.away = false;
    expect(await relay().drain()).toMatchObject({ started: 2 });
    const of = (id: string) => temporal.activations.find((a) => a.activationId === id)!;
    const day = t.config.ACTIVATION_CANCEL_AFTER_SECONDS * 1000;
    expect(of(young.activationId).cancelAfterMs).toBeGreaterThan(day - 3_600_000 - 60_000);
    expect(of(young.activationId).cancelAfterMs).toBeLessThanOrEqual(day - 3_600_000);
    expect(of(old.activationId).cancelAfterMs).toBeLessThanOrEqual(-3_600_000);
  });

  it('starts paid when its order was paid while it had no run', async () => {
    const { activationId, orderId } = await agedActivation(0);
    const [{ id: paymentId }] = await t.db.query<{ id: string }>(
      `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                             paid_at, created_at, updated_at)
       select gen_random_uuid(), o.id, o.user_id, 'local_debit', 'mock', 'completed', o.total_halalas, 'SAR', gen_random_uuid()::text,
              repeat('f', 64), now(), now(), now()
         from orders o where o.id = $1 returning id`,
      [orderId],
    );
    await t.db.query(`update orders set status = 'paid' where id = $1`, [orderId]);
    temporal.away = false;
    expect(await relay().drain()).toMatchObject({ started: 1 });
    expect(temporal.activations.find((a) => a.activationId === activationId)).toMatchObject({ paid: true, paymentId });
  });
});

describe('the running relay', () => {
  it('is woken by the failed attempt of a request and starts it once Temporal answers, long before its poll', async () => {
    const r = relay({ pollIntervalMs: 60_000, maxBackoffMs: 200, baseBackoffMs: 100 });
    r.start();
    const ids = await createWhileAway();
    temporal.away = false;
    await eventually(async () => expect(await pending()).toEqual([]), 10_000);
    expect(temporal.started.sort()).toEqual([...ids].sort());
    expect(logLines.some((l) => l.includes('start relay: workflow starts succeed again'))).toBe(true);
  });
});
