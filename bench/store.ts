/**
 * The eSIM store's catalog at scale (a phase of `npm run bench`, `--only store` / `--no-store`):
 * GET /store/products with 1,000 and then 10,000 products in the table, in one run.
 *
 * - The catalog: the development stand-ins (12 products, the mock FX rates) and a bench provider whose
 *   catalog is written by the real catalog sync (activities/store.ts syncStoreCatalog, the same code the
 *   store-sync workflow runs): first 988 products (1,000 in all), then 10,000 - 12 (a second sync adds
 *   9,000); each sync's time is reported. The rates have a year of hourly snapshots behind the current ones. Products cover one of 30 countries, every tenth two more, every
 *   fiftieth SA, AE, EG, GB and US; prices 1.00-99.99 USD.
 * - Each size measures, over sequential requests on one keep-alive connection (no queueing), timed inside
 *   the server process (request event to the response's 'finish'): the first page, a deep cursor page
 *   (the cursor of the product 90% down the price order), the country filter (SA) and a non-USD currency
 *   (SAR), and GET /store/status as the control (it reads no product: its ratio is the machine's drift).
 * - EXPLAIN (ANALYZE, BUFFERS) of the statements the API prepared (lib/explain.ts), custom and generic
 *   plan: the products are read through store_products_browse_index (price, id) or, by country, the
 *   primary key of store_product_countries (country, price, id); no sequential scan of a catalog table;
 *   the rate through fx_rate_snapshots_latest_index. Plans are judged at 10,000 products (at 1,000 PostgreSQL
 *   may rightly read a small table whole); `operators`, a handful of rows, is read however the planner finds
 *   cheapest (its primary key, or a scan of its one page) and is reported, not judged.
 *
 * Budgets (issue 24): each server-side p50 under 5 ms at 10,000 products, p50 at 10,000 at most 1.5
 * times p50 at 1,000 (flat), every plan through indexes.
 *
 * The server runs in its own child process (this file forked with `--serve-store`), like the other
 * phases' servers, with the store gate on.
 */
import type { ChildProcess } from 'node:child_process';
import type { PoolClient } from 'pg';
import { createStoreActivities } from '../activities/store';
import { openPool } from '../src/db/database';
import { createDb, type Db } from '../src/db/sql';
import { seedProvider } from '../src/store/repository';
import { seedStoreStandIns } from '../src/store/stand-ins';
import { StoreProviderRegistry, type ProviderProduct, type StoreProviderPlugin } from '../src/store/providers/plugin';
import { serverContext } from './lib/app';
import { serveChild } from './lib/child';
import { explainPrepared, walk } from './lib/explain';
import type { Phase } from './lib/phase';
import { asker, seconds } from './lib/processes';
import { p50Budget, printBudgets, printSequential, printSizeLatencies, ratioBudget, verdictOf, type Budget } from './lib/report';
import { fmt, latencyStats, type LatencyStats } from './lib/stats';
import { forkTimedApp, timedApp, type TimedAppDeps } from './lib/timed-app';
import { captureStatements, type TimingSamples } from './lib/timing';

const SMALL = 1_000;
const LARGE = 10_000;
const STAND_INS = 12;
const BUDGET = { maxP50Ms: 5, maxRatio: 1.5 };
const WARMUP_REQUESTS = 200;
const PAGE_LIMIT = 20;
const DEEP_SHARE = 0.9;

const BENCH_PROVIDER = {
  id: 'b5e00000-0000-4000-8000-000000000001',
  slug: 'bench-store',
  nameEn: 'Bench eSIM store',
  nameAr: 'متجر القياس',
  paymentMode: 'internal' as const,
  supportsAsync: true,
};

/** The statements GET /store/products prepares (src/store/reads.ts, src/fx/repository.ts), by their names. */
const STATEMENTS = {
  page: 'store.browse-page',
  after: 'store.browse-page-after',
  country: 'store.browse-country-page',
  rate: 'fx.latest-rate',
};

const REQUESTS = ['first', 'deep', 'country', 'currency', 'control'] as const;
type StoreRequest = (typeof REQUESTS)[number];
const LABEL: Record<StoreRequest, string> = {
  first: 'first page',
  deep: `deep cursor page (${DEEP_SHARE * 100}%)`,
  country: 'country SA',
  currency: 'currency SAR',
  control: 'control /store/status',
};

// ---------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------

const COUNTRIES = 'SA AE EG GB US FR DE IT ES TR JO KW QA BH OM IN PK ID MY TH JP KR CN SG PH NG KE ZA BR MX'.split(' ');

/** The n-th bench product (deterministic). */
function benchProduct(n: number): ProviderProduct {
  const home = COUNTRIES[n % COUNTRIES.length];
  const countries = new Set([home]);
  if (n % 10 === 0) for (const k of [7, 13]) countries.add(COUNTRIES[(n + k) % COUNTRIES.length]);
  if (n % 50 === 0) for (const c of ['SA', 'AE', 'EG', 'GB', 'US']) countries.add(c);
  const unlimited = n % 17 === 0;
  return {
    sku: `BENCH-${String(n).padStart(6, '0')}`,
    nameEn: `${home} ${unlimited ? 'unlimited' : `${(n % 20) + 1} GB`} #${n}`,
    nameAr: `${home} باقة ${n}`,
    countries: [...countries],
    dataAmountMb: unlimited ? null : ((n % 20) + 1) * 1024,
    isUnlimited: unlimited,
    validityDays: [7, 15, 30][n % 3],
    requiresKyc: n % 97 === 0,
    priceUsdCents: 100 + ((n * 7919) % 9900),
  };
}

/** A provider that lists the first `count` bench products. */
function benchPlugin(count: () => number): StoreProviderPlugin {
  return {
    slug: BENCH_PROVIDER.slug,
    health: () => Promise.resolve({ ok: true, detail: 'bench provider' }),
    listProducts: () => Promise.resolve(Array.from({ length: count() }, (_, i) => benchProduct(i + 1))),
    placeOrder: () => Promise.reject(new Error('the bench provider takes no orders')),
    getOrder: () => Promise.reject(new Error('the bench provider takes no orders')),
  };
}

interface SyncRun {
  products: number;
  added: number;
  seconds: number;
  productsPerSecond: number;
}

/** Writes the bench provider's catalog of `count` products through the real sync activity; timed. */
async function syncBenchCatalog(db: Db, count: number): Promise<SyncRun> {
  const activities = createStoreActivities({ db, storeProviders: new StoreProviderRegistry([benchPlugin(() => count)]) });
  const t = performance.now();
  const result = await activities.syncStoreCatalog({ providerId: BENCH_PROVIDER.id });
  const s = seconds(t);
  if (result.skipped > 0 || result.deactivated > 0)
    throw new Error(`the bench sync skipped or deactivated products: ${JSON.stringify(result)}`);
  return { products: count, added: result.added, seconds: s, productsPerSecond: result.added / s };
}

/** A year of hourly FX fetches before the current rates (43,800 snapshots): the latest rate is read among them, as in production. */
async function seedRateHistory(db: PoolClient): Promise<number> {
  const { rowCount } = await db.query(
    `insert into fx_rate_snapshots (currency, rate_per_usd, source, fetched_at)
     select u.c, u.r, 'bench', now() - make_interval(hours => h)
       from unnest(array['SAR', 'AED', 'EUR', 'GBP', 'EGP'], array[3.75, 3.6725, 0.92, 0.79, 48.5]::numeric[]) as u(c, r),
            generate_series(1, 8760) h`,
  );
  return rowCount ?? 0;
}

async function settle(db: PoolClient): Promise<void> {
  await db.query('vacuum (analyze) store_products, store_product_countries, operators, fx_rate_snapshots');
  await db.query('checkpoint');
}

// ---------------------------------------------------------------------------
// The server (a child process)
// ---------------------------------------------------------------------------

type Ready = { type: 'ready'; port: number };
type FromChild =
  | Ready
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> }
  | { type: 'sql'; statements: Record<string, string> };
const ask = asker<FromChild>();

async function serveStore(): Promise<void> {
  let statements: Record<string, string> = {};
  const ctx = serverContext();
  await serveChild(() =>
    timedApp(
      // The bench configuration with the store gate on.
      { ...ctx, config: { ...ctx.config, FEATURE_ESIM_STORE: true } },
      {
        timed: ['/store/'],
        method: 'GET',
        beforeApp: (pool) => (statements = captureStatements(pool, STATEMENTS)),
        handle: (msg) => (msg === 'sql' ? { type: 'sql', statements: { ...statements } } : undefined),
      },
    ),
  );
}

async function startStoreServer(deps: TimedAppDeps): Promise<{ proc: ChildProcess; port: number }> {
  const { proc, ready } = await forkTimedApp<Ready>(deps, { file: __filename, flag: '--serve-store', name: 'store server' });
  return { proc, port: ready.port };
}

// ---------------------------------------------------------------------------
// One size
// ---------------------------------------------------------------------------

interface PlanCheck {
  label: string;
  access: string[];
  throughIndexes: boolean;
  executionMs: number;
  sharedHit: number;
  sharedRead: number;
  text: string;
}

interface StoreSize {
  products: number;
  visible: number;
  saProducts: number;
  sequential: Record<StoreRequest, { url: string; server: LatencyStats; client: LatencyStats }>;
  explain: PlanCheck[];
}

const CATALOG_TABLES = ['store_products', 'store_product_countries', 'fx_rate_snapshots'];

/**
 * EXPLAIN of one statement, custom and generic plan. Through indexes: no sequential scan of a catalog
 * table (the products, their countries, the rates), and each of them read by an index scan of its own
 * indexes. (`operators`, a handful of rows, is whatever the planner finds cheapest: it is reported.)
 */
async function explainStatement(
  db: PoolClient,
  label: string,
  text: string | undefined,
  values: Array<string | number>,
): Promise<PlanCheck[]> {
  if (!text) throw new Error(`the server did not capture the statement of ${label}`);
  const plans = await explainPrepared(db, `bench_store_${label.replace(/\W/g, '_')}`, text, values);
  return plans.map((p) => {
    const access: string[] = [];
    let ok = true;
    let catalogRead = false;
    walk(p.top, (node) => {
      const relation = node['Relation Name'];
      if (!relation && !node['Index Name']) return;
      access.push(`${relation ? `${relation}: ` : ''}${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
      if (relation && CATALOG_TABLES.includes(relation)) {
        catalogRead = true;
        if (!node['Index Name']?.startsWith(relation)) ok = false;
      }
    });
    return {
      label: `${label}, ${p.plan} plan`,
      access,
      throughIndexes: ok && catalogRead,
      executionMs: p.executionMs,
      sharedHit: p.top['Shared Hit Blocks'] ?? 0,
      sharedRead: p.top['Shared Read Blocks'] ?? 0,
      text: p.text,
    };
  });
}

async function measureSize(server: { proc: ChildProcess; port: number }, db: PoolClient, requests: number): Promise<StoreSize> {
  const origin = `http://127.0.0.1:${server.port}`;
  const [{ products, visible }] = (
    await db.query<{ products: number; visible: number }>(
      `select count(*)::int as products, count(*) filter (where p.is_active and o.is_active and o.health_ok and o.payment_mode = 'internal')::int as visible
         from store_products p join operators o on o.id = p.provider_id`,
    )
  ).rows;
  const [{ sa }] = (await db.query<{ sa: number }>(`select count(*)::int as sa from store_product_countries where country = 'SA'`)).rows;
  // The product 90% down the store's order: its cursor opens a deep page.
  const [deep] = (
    await db.query<{ cents: string; id: string }>(
      `select p.price_usd_cents::text as cents, p.id from store_products p join operators o on o.id = p.provider_id
        where p.is_active and o.is_active and o.health_ok and o.payment_mode = 'internal'
        order by p.price_usd_cents, p.id offset $1 limit 1`,
      [Math.floor(visible * DEEP_SHARE)],
    )
  ).rows;
  const cursor = `${deep.cents}|${deep.id}`;
  const paths: Record<StoreRequest, string> = {
    first: '/store/products',
    deep: `/store/products?cursor=${encodeURIComponent(cursor)}`,
    country: '/store/products?country=SA',
    currency: '/store/products?currency=SAR',
    control: '/store/status',
  };
  const get = async (path: string) => {
    const start = performance.now();
    const res = await fetch(`${origin}${path}`);
    const body = (await res.json()) as { items?: Array<{ countries: string[]; price: { currency: string } }>; hasMore?: boolean };
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  // The answers are what they should be before anything is timed.
  for (const k of ['first', 'deep', 'country', 'currency'] as const) {
    const { body } = await get(paths[k]);
    if (body.items?.length !== PAGE_LIMIT || !body.hasMore) throw new Error(`${LABEL[k]} is not a full page with more after it`);
    if (k === 'country' && !body.items.every((p) => p.countries.includes('SA'))) throw new Error('the country page holds another country');
    if (k === 'currency' && !body.items.every((p) => p.price.currency === 'SAR')) throw new Error('the SAR page is not in SAR');
  }

  for (let i = 0; i < WARMUP_REQUESTS; i++) for (const k of REQUESTS) await get(paths[k]);
  await ask(server, 'timing', 'timing'); // drop the warm-up samples
  const client = Object.fromEntries(REQUESTS.map((k) => [k, [] as number[]])) as Record<StoreRequest, number[]>;
  for (let i = 0; i < requests; i++) for (const k of REQUESTS) client[k].push((await get(paths[k])).ms);
  const { samples } = await ask(server, 'timing', 'timing');
  const sequential = {} as StoreSize['sequential'];
  for (const k of REQUESTS) {
    const s = samples[paths[k]];
    if (!s || s.ms.length !== requests || s.non2xx) throw new Error(`server-side timing of ${paths[k]}: ${s?.ms.length ?? 0} samples`);
    sequential[k] = { url: paths[k], server: latencyStats(s.ms), client: latencyStats(client[k]) };
  }

  const { statements } = await ask(server, 'sql', 'sql');
  const rows = PAGE_LIMIT + 1;
  const explain = [
    ...(await explainStatement(db, 'first page', statements.page, [rows])),
    ...(await explainStatement(db, 'deep cursor page', statements.after, [rows, deep.cents, deep.id])),
    ...(await explainStatement(db, 'country SA', statements.country, [rows, 'SA'])),
    ...(await explainStatement(db, 'rate SAR', statements.rate, ['SAR'])),
  ];
  return { products, visible, saProducts: sa, sequential, explain };
}

function printSize(s: StoreSize): void {
  console.log(`  ${fmt(s.products, 0)} products (${fmt(s.visible, 0)} on sale, ${fmt(s.saProducts, 0)} covering SA):`);
  for (const k of REQUESTS) printSequential(LABEL[k], s.sequential[k], 36);
  for (const e of s.explain) {
    console.log(
      `    EXPLAIN ${e.label}: ${e.throughIndexes ? 'through indexes' : '*** NOT through indexes ***'}; execution ${fmt(e.executionMs, 3)} ms, ` +
        `buffers hit ${e.sharedHit}, read ${e.sharedRead}; ${e.access.join(', ')}`,
    );
  }
}

// ---------------------------------------------------------------------------
// The phase
// ---------------------------------------------------------------------------

export interface StoreReport {
  route: string;
  requestsPerKind: number;
  syncs: [SyncRun, SyncRun];
  sizes: [StoreSize, StoreSize];
  p50Ratio: Record<StoreRequest, number>;
  budgets: Budget[];
  verdict: 'PASS' | 'FAIL';
}

export const storePhase: Phase<StoreReport> = {
  name: 'store',
  plan: () => `GET /store/products at ${fmt(SMALL, 0)} and ${fmt(LARGE, 0)} products`,
  run: (ctx) => benchStore({ databaseUrl: ctx.databaseUrl, onCleanup: ctx.onCleanup }, ctx.opts.historyRequests),
  verdict: (report) => report.verdict,
};

async function benchStore(deps: TimedAppDeps, requests: number): Promise<StoreReport> {
  console.log(`\nbench: GET /store/products at ${fmt(SMALL, 0)} and ${fmt(LARGE, 0)} products, written by the catalog sync`);
  const pool = openPool(deps.databaseUrl, 2);
  const db = createDb(pool);
  let client: PoolClient | undefined;
  try {
    await db.transaction((tx) => seedStoreStandIns(tx));
    await db.transaction((tx) => seedProvider(tx, BENCH_PROVIDER, { ok: true, detail: 'bench provider' }, new Date()));
    const small = await syncBenchCatalog(db, SMALL - STAND_INS);
    console.log(
      `  synced ${fmt(small.added, 0)} products through the catalog sync in ${fmt(small.seconds, 2)} s (${fmt(small.productsPerSecond, 0)}/s)`,
    );
    client = await pool.connect();
    const snapshots = await seedRateHistory(client);
    console.log(`  ${fmt(snapshots, 0)} older rate snapshots (a year of hourly fetches) before the current ones`);
    await settle(client);
    const server = await startStoreServer(deps);
    const smallSize = await measureSize(server, client, requests);
    printSize(smallSize);

    const large = await syncBenchCatalog(db, LARGE - STAND_INS);
    console.log(
      `  synced ${fmt(large.added, 0)} more products (a catalog of ${fmt(large.products, 0)}) in ${fmt(large.seconds, 2)} s (${fmt(large.productsPerSecond, 0)}/s)`,
    );
    await settle(client);
    const largeSize = await measureSize(server, client, requests);
    printSize(largeSize);

    const ratio = (k: StoreRequest) => largeSize.sequential[k].server.p50 / smallSize.sequential[k].server.p50;
    const p50Ratio = Object.fromEntries(REQUESTS.map((k) => [k, ratio(k)])) as Record<StoreRequest, number>;
    const budgets: Budget[] = [];
    for (const k of ['first', 'deep', 'country', 'currency'] as const) {
      for (const size of [smallSize, largeSize]) {
        budgets.push(
          p50Budget(`${LABEL[k]}: server-side p50 at ${fmt(size.products, 0)} products`, size.sequential[k].server.p50, BUDGET.maxP50Ms),
        );
      }
      budgets.push(ratioBudget(`${LABEL[k]}: p50 at ${fmt(LARGE, 0)} / p50 at ${fmt(SMALL, 0)} products`, p50Ratio[k], BUDGET.maxRatio));
    }
    const indexed = largeSize.explain.length > 0 && largeSize.explain.every((e) => e.throughIndexes);
    budgets.push({
      name: `EXPLAIN at ${fmt(LARGE, 0)} products: the catalog read through its indexes (no sequential scan)`,
      value: indexed,
      limit: 'index scans only',
      verdict: indexed ? 'PASS' : 'FAIL',
    });
    const report: StoreReport = {
      route: 'GET /store/products',
      requestsPerKind: requests,
      syncs: [small, large],
      sizes: [smallSize, largeSize],
      p50Ratio,
      budgets,
      verdict: verdictOf(budgets),
    };
    printReport(report);
    return report;
  } finally {
    client?.release();
    await pool.end();
  }
}

function printReport(r: StoreReport): void {
  const [small, large] = r.sizes;
  printSizeLatencies({
    route: r.route,
    requestsPerKind: r.requestsPerKind,
    sizes: ['1k', '10k'],
    kinds: REQUESTS,
    label: LABEL,
    latencies: [small.sequential, large.sequential],
    p50Ratio: r.p50Ratio,
    controlSkips: 'product',
  });
  printBudgets(r.budgets);
  for (const label of ['deep cursor page, generic plan', 'country SA, generic plan']) {
    const plan = large.explain.find((e) => e.label === label);
    if (!plan) continue;
    console.log(`  plan (${plan.label}, ${fmt(large.products, 0)} products):`);
    for (const line of plan.text.split('\n')) console.log(`    ${line}`);
  }
}

if (require.main === module && process.argv[2] === '--serve-store') void serveStore();
