/**
 * The FX fetch workflow (issue 24, time-skipping server) with the real activities on a real database:
 * "Each fetch appends snapshots; a failed fetch keeps the last rates, logs, and never blocks."
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { FxSourceError, type FxSource } from '../../src/fx/source';
import { fxFetchWorkflow } from '../../workflows/fx-fetch';
import type { TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp } from '../helpers/store';
import { bundleWorkflows, createTimeSkippingEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(60_000);

/** The source's next answers: a failure to throw, or rates. */
const next: { fail?: FxSourceError; calls: number } = { calls: 0 };
const source: FxSource = {
  name: 'feed.example',
  fetchRates() {
    next.calls += 1;
    if (next.fail) return Promise.reject(next.fail);
    return Promise.resolve({ source: 'feed.example', rates: { SAR: '3.7502', EUR: '0.9123' } });
  },
};

let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: RunningTestWorker;

beforeAll(async () => {
  const [e, bundle, app] = await Promise.all([
    createTimeSkippingEnv(),
    bundleWorkflows(require.resolve('../../workflows')),
    createStoreApp(),
  ]);
  [env, t] = [e, app];
  worker = await runTestWorker(env, {
    taskQueue: uniqueTaskQueue('fx'),
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config, { clock: t.clock, fxSource: source }),
  });
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});
beforeEach(() => {
  next.fail = undefined;
  next.calls = 0;
});

const fetch = () =>
  env.client.workflow.execute(fxFetchWorkflow, { taskQueue: worker.taskQueue, workflowId: `fx-${Date.now()}-${Math.random()}`, args: [] });
const latest = () =>
  t.db.query<{ currency: string; rate: string; source: string; fetched_at: Date }>(
    `select distinct on (currency) currency, trim_scale(rate_per_usd)::text as rate, source, fetched_at
       from fx_rate_snapshots order by currency, fetched_at desc`,
  );

it('appends one snapshot per currency the source gave, all at one fetchedAt; the others keep their last rate', async () => {
  const before = (await t.db.query(`select 1 from fx_rate_snapshots`)).length;
  t.clock.advance(60_000);
  expect(await fetch()).toEqual({
    status: 'fetched',
    source: 'feed.example',
    currencies: ['EUR', 'SAR'],
    fetchedAt: t.clock().toISOString(),
  });
  expect(await t.db.query(`select 1 from fx_rate_snapshots`)).toHaveLength(before + 2);
  const rates = Object.fromEntries((await latest()).map((r) => [r.currency, [r.rate, r.source]]));
  expect(rates).toEqual({
    AED: ['3.6725', 'mock'],
    EGP: ['48.5', 'mock'],
    EUR: ['0.9123', 'feed.example'],
    GBP: ['0.79', 'mock'],
    SAR: ['3.7502', 'feed.example'],
  });
});

it('keeps the last rates when the source stays down: a few retries (timers skipped), then the run ends failed, logged, without writing', async () => {
  const before = await latest();
  next.fail = new FxSourceError('fx source unavailable: HTTP 503 after 3 attempts', true);
  expect(await fetch()).toEqual({ status: 'failed', reason: 'fx source unavailable: HTTP 503 after 3 attempts' });
  expect(next.calls).toBe(3);
  expect(await latest()).toEqual(before);
});

it('does not retry a malformed answer; the last rates stay', async () => {
  const before = await latest();
  next.fail = new FxSourceError('fx source answered without base USD', false);
  expect(await fetch()).toEqual({ status: 'failed', reason: 'fx source answered without base USD' });
  expect(next.calls).toBe(1);
  expect(await latest()).toEqual(before);
});
