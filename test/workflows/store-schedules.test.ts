/**
 * The store's Temporal Schedules on the dev server (the time-skipping server has no schedules): the
 * catalog sync (STORE_SYNC_EVERY) and the FX fetch (FX_FETCH_EVERY, "overlap skip"), with the real
 * activities on a real database. Issue 24: "time-skipping tests of the sync workflow and both
 * schedules (overlap, failure keeps old data ...)". Nothing here waits for a timer: runs are triggered
 * or backfilled, and the test polls for their outcome.
 */
import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig, type Config } from '../../src/config';
import { FxSourceError, type FxSource } from '../../src/fx/source';
import { mockStoreProviders } from '../../src/store/providers/mock';
import { ensureSchedules } from '../../src/temporal/schedules';
import { retiredScheduleIds, scheduleSpecs } from '../../worker/schedules';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { STORE_SCHEDULE_IDS, storeScheduleSpecs } from '../../src/store/schedules';
import type { FxFetchResult } from '../../workflows/contracts/fx-fetch-contract';
import type { StoreSyncAllResult } from '../../workflows/contracts/store-sync-contract';
import { eventually, type TestApp } from '../helpers/app';
import { realActivities } from '../helpers/real-activities';
import { createStoreApp, providerId } from '../helpers/store';
import { bundleWorkflows, createLocalEnv, runTestWorker, uniqueTaskQueue, type RunningTestWorker } from '../helpers/temporal';

jest.setTimeout(120_000);

/** The FX source's behaviour: hold the fetch until released, fail, or answer. */
const fx: { hold?: Promise<void>; fail?: FxSourceError; calls: number } = { calls: 0 };
const source: FxSource = {
  name: 'feed.example',
  async fetchRates() {
    fx.calls += 1;
    if (fx.hold) await fx.hold;
    if (fx.fail) throw fx.fail;
    return { source: 'feed.example', rates: { SAR: '3.7511' } };
  },
};

let env: TestWorkflowEnvironment;
let t: TestApp;
let config: Config;
let worker: RunningTestWorker;
const logger = { info: () => undefined };

beforeAll(async () => {
  const [e, bundle, app] = await Promise.all([
    createLocalEnv({ server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } }),
    bundleWorkflows(require.resolve('../../workflows')),
    createStoreApp(),
  ]);
  [env, t] = [e, app];
  config = loadConfig({
    NODE_ENV: 'test',
    FEATURE_ESIM_STORE: 'true',
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('store-schedules'),
    STORE_SYNC_EVERY: '30m',
    FX_FETCH_EVERY: '15m',
  });
  worker = await runTestWorker(env, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: bundle,
    activities: realActivities(t.db, t.config, { storeProviders: mockStoreProviders(), fxSource: source }),
  });
  await ensureSchedules(env.client, storeScheduleSpecs(config), logger);
});
afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await t?.close();
});
beforeEach(() => {
  fx.hold = undefined;
  fx.fail = undefined;
  fx.calls = 0;
});

const handle = (id: string) => env.client.schedule.getHandle(id);

/** The result of the schedule's newest run, once there is one more than `known` and it ended. */
async function nextResult<T>(scheduleId: string, known: number): Promise<T> {
  let workflowId = '';
  await eventually(async () => {
    const { recentActions } = (await handle(scheduleId).describe()).info;
    expect(recentActions.length).toBeGreaterThan(known);
    workflowId = recentActions.at(-1)!.action.workflow.workflowId;
  }, 30_000);
  return env.client.workflow.getHandle(workflowId).result() as Promise<T>;
}
/** A backfill window holding exactly three due times of an interval counted from the epoch, all in the past. */
function threeDueTimes(every: number, now = Date.now()): { start: Date; end: Date } {
  const margin = 30_000;
  let last = Math.floor(now / every) * every;
  if (last + margin > now) last -= every;
  return { start: new Date(last - 2 * every - margin), end: new Date(last + margin) };
}
const actionsOf = async (scheduleId: string) => (await handle(scheduleId).describe()).info.recentActions.length;

it('creates both schedules with the configured intervals, their workflows and overlap SKIP', async () => {
  const sync = await handle(STORE_SCHEDULE_IDS.catalogSync).describe();
  expect(sync.spec.intervals).toMatchObject([{ every: 1_800_000 }]);
  expect(sync.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'storeCatalogSyncAllWorkflow',
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  });
  expect(sync.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
  const fetch = await handle(STORE_SCHEDULE_IDS.fxFetch).describe();
  expect(fetch.spec.intervals).toMatchObject([{ every: 900_000 }]);
  expect(fetch.action).toMatchObject({ type: 'startWorkflow', workflowType: 'fxFetchWorkflow' });
  expect(fetch.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
  expect(fetch.state.note).toMatch(/a failed fetch keeps the last rates/);
});

it('is part of the worker’s list while the store is on; with it off there is none, and the worker deletes them', () => {
  const ids = scheduleSpecs(config).map((s) => s.scheduleId);
  expect(ids).toEqual(expect.arrayContaining([STORE_SCHEDULE_IDS.catalogSync, STORE_SCHEDULE_IDS.fxFetch]));
  const off = loadConfig({ NODE_ENV: 'test' });
  expect(scheduleSpecs(off).map((s) => s.scheduleId)).not.toContain(STORE_SCHEDULE_IDS.fxFetch);
  expect(retiredScheduleIds(off)).toEqual(expect.arrayContaining(['activation-recovery', 'store-catalog-sync', 'fx-fetch']));
  expect(retiredScheduleIds(config)).toEqual(['activation-recovery']);
});

it('fetches rates when it runs: a snapshot appended', async () => {
  const known = await actionsOf(STORE_SCHEDULE_IDS.fxFetch);
  await handle(STORE_SCHEDULE_IDS.fxFetch).trigger();
  expect(await nextResult<FxFetchResult>(STORE_SCHEDULE_IDS.fxFetch, known)).toMatchObject({ status: 'fetched', currencies: ['SAR'] });
  const [latest] = await t.db.query<{ rate: string; source: string }>(
    `select trim_scale(rate_per_usd)::text as rate, source from fx_rate_snapshots where currency = 'SAR' order by fetched_at desc limit 1`,
  );
  expect(latest).toEqual({ rate: '3.7511', source: 'feed.example' });
});

it('keeps the last rates when a fetch fails, and the schedule goes on (the next run fetches)', async () => {
  const snapshots = async () => (await t.db.query(`select 1 from fx_rate_snapshots`)).length;
  const before = await snapshots();
  fx.fail = new FxSourceError('fx source answered without base USD', false);
  let known = await actionsOf(STORE_SCHEDULE_IDS.fxFetch);
  await handle(STORE_SCHEDULE_IDS.fxFetch).trigger();
  expect(await nextResult<FxFetchResult>(STORE_SCHEDULE_IDS.fxFetch, known)).toEqual({
    status: 'failed',
    reason: 'fx source answered without base USD',
  });
  expect(await snapshots()).toBe(before);

  fx.fail = undefined;
  known = await actionsOf(STORE_SCHEDULE_IDS.fxFetch);
  await handle(STORE_SCHEDULE_IDS.fxFetch).trigger();
  expect(await nextResult<FxFetchResult>(STORE_SCHEDULE_IDS.fxFetch, known)).toMatchObject({ status: 'fetched' });
  expect(await snapshots()).toBe(before + 1);
});

it('skips a run that falls due while the previous one still runs (overlap SKIP): one fetch, the others skipped', async () => {
  let release!: () => void;
  fx.hold = new Promise<void>((resolve) => (release = resolve));
  const described = await handle(STORE_SCHEDULE_IDS.fxFetch).describe();
  const skippedBefore = described.info.numActionsSkippedOverlap;
  const known = described.info.recentActions.length;
  // Three due times at once (a backfill takes the schedule's own overlap policy): the first starts and holds.
  // The interval counts from the epoch, so the window is laid around three of its due times exactly: a
  // window of a fixed length from `now` holds two or three of them depending on the minute.
  await handle(STORE_SCHEDULE_IDS.fxFetch).backfill(threeDueTimes(15 * 60_000));
  try {
    await eventually(async () => {
      const info = (await handle(STORE_SCHEDULE_IDS.fxFetch).describe()).info;
      expect(info.numActionsSkippedOverlap - skippedBefore).toBe(2);
      expect(info.runningActions).toHaveLength(1);
      expect(fx.calls).toBe(1);
    }, 30_000);
  } finally {
    release(); // a held fetch would keep the worker from stopping after a failure
  }
  expect(await nextResult<FxFetchResult>(STORE_SCHEDULE_IDS.fxFetch, known)).toMatchObject({ status: 'fetched' });
  expect(fx.calls).toBe(1);
});

it('syncs every active provider when it runs, each run findable by its StoreProvider search attribute', async () => {
  const known = await actionsOf(STORE_SCHEDULE_IDS.catalogSync);
  await handle(STORE_SCHEDULE_IDS.catalogSync).trigger();
  const result = await nextResult<StoreSyncAllResult>(STORE_SCHEDULE_IDS.catalogSync, known);
  expect(result.providers.map((p) => [p.providerId, p.status]).sort()).toEqual(
    [
      [providerId('mock-store'), 'synced'],
      [providerId('mock-store-external'), 'synced'],
      [providerId('mock-store-lite'), 'synced'],
    ].sort(),
  );
  // The stand-ins are what the mocks list: nothing to change.
  expect(result.providers.find((p) => p.providerId === providerId('mock-store'))).toMatchObject({ added: 0, updated: 0, deactivated: 0 });
  await eventually(async () => {
    const found: string[] = [];
    for await (const run of env.client.workflow.list({ query: `StoreProvider = "mock-store"` })) found.push(run.workflowId);
    expect(found).toContain(`store-sync:${providerId('mock-store')}`);
  }, 15_000);
});
