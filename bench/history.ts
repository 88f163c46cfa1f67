/**
 * GET /activations/history at scale (a phase of `npm run bench`, `--only history` /
 * `--no-history`): the bench user's history pages with 10,000 and then 1,000,000
 * activations in the table, in one run.
 *
 * Two phases in one run, same user, same requests: the table first holds
 * HISTORY_SMALL_ROWS activations, then grows to --history-rows (1,000,000). The
 * signed-up bench user owns HISTORY_USER_ROWS of them (all seeded in the first
 * phase; growing the table only adds other users' rows). Each phase measures
 * (history/measure.ts):
 *   - sequential requests on one keep-alive connection (no queueing), first page
 *     and next page (its cursor) alternately, timed inside the server process
 *     (the `app+timing` server: request event to response 'finish') and by the
 *     client: the budgets use the server-side p50;
 *   - the first page under autocannon load, for throughput and CPU per request
 *     (context only; its latency includes queueing);
 *   - EXPLAIN (ANALYZE, BUFFERS) of the very statement texts the API prepared,
 *     with the custom and the generic plan.
 * Budgets (the issue): server-side p50 under 5 ms at the large size, p50 at the
 * large size at most 1.5 times p50 at the small size, and every plan at the large
 * size reads activations through activations_user_history_index.
 * Seeding: see history/seed.ts (set operations; the large phase loads like
 * pg_restore, history/bulk-load.ts: keys, indexes and foreign keys dropped, then
 * recreated and checked).
 */
import type { PoolClient } from 'pg';
import { DEFAULT_PAGE_SIZE } from '../src/activations/read-service';
import { seedDemoCatalog } from '../src/catalog/demo-seed';
import { openPool } from '../src/db/database';
import { createDb } from '../src/db/sql';
import type { Phase, PhaseContext } from './lib/phase';
import { seconds } from './lib/processes';
import { p50Budget, ratioBudget, verdictOf, type Budget } from './lib/report';
import { fmt } from './lib/stats';
import { bulkLoadSchema, dropForBulkLoad, rebuildAfterBulkLoad } from './history/bulk-load';
import { HISTORY_INDEX, HISTORY_PATH, measureSize, type HistoryPage } from './history/measure';
import { printHistoryPhase, printHistoryReport, type HistoryReport } from './history/report';
import { SEEDED_USERS, seedActivations, seedUsers, settle } from './history/seed';

const HISTORY_SMALL_ROWS = 10_000;
const HISTORY_USER_ROWS = 200;
const HISTORY_BUDGET = { maxP50Ms: 5, maxRatio: 1.5 };

export const historyPhase: Phase<HistoryReport> = {
  name: 'history',
  plan: (opts) => `GET /activations/history at ${fmt(HISTORY_SMALL_ROWS, 0)} and ${fmt(opts.historyRows, 0)} activations`,
  check(opts) {
    if (opts.historyRows <= HISTORY_SMALL_ROWS) throw new Error(`--history-rows must be above ${HISTORY_SMALL_ROWS}`);
  },
  // The user the `app` server signed up (shared with the scenarios) owns the measured pages.
  run: async (ctx) => historyBench(ctx, (await ctx.appServers([])).fixtures),
  verdict: (report) => report.verdict,
};

async function historyBench(ctx: PhaseContext, fx: { userId: string; mobileToken: string }): Promise<HistoryReport> {
  const { opts, databaseUrl, postgresCpu } = ctx;
  const large = opts.historyRows;
  console.log(
    `\nbench: GET ${HISTORY_PATH} at ${fmt(HISTORY_SMALL_ROWS, 0)} and ${fmt(large, 0)} activations across ` +
      `${fmt(SEEDED_USERS, 0)} seeded users; the bench user owns ${HISTORY_USER_ROWS}`,
  );
  const pool = openPool(databaseUrl, 3); // two held for seeding and EXPLAIN, one for the ORM (the catalog seed)
  const dbs: PoolClient[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const client = await pool.connect();
      dbs.push(client);
      await client.query(`set maintenance_work_mem = '256MB'`);
    }
    const db = dbs[0];
    const server = await ctx.startServer('app+timing');
    const range = { benchUserId: fx.userId, smallRows: HISTORY_SMALL_ROWS, benchEvery: HISTORY_SMALL_ROWS / HISTORY_USER_ROWS };

    // Phase 1: every row inserted with all constraints and indexes live.
    let t = performance.now();
    await seedDemoCatalog(createDb(pool));
    await seedUsers(db);
    await seedActivations([db], { ...range, from: 1, to: HISTORY_SMALL_ROWS });
    const smallInsert = seconds(t);
    t = performance.now();
    await settle(db);
    const smallSettle = seconds(t);
    console.log(
      `  seeded ${fmt(HISTORY_SMALL_ROWS, 0)} activations (+ orders, order items, ${fmt(SEEDED_USERS, 0)} users, demo catalog) ` +
        `with every constraint live in ${fmt(smallInsert, 1)} s; vacuum analyze + checkpoint ${fmt(smallSettle, 1)} s`,
    );
    const small = await measureSize(server, fx, HISTORY_SMALL_ROWS, opts, postgresCpu, db);
    printHistoryPhase(small, false);

    // Phase 2: grow the table the way pg_restore loads one.
    const t0 = performance.now();
    t = t0;
    const schema = await bulkLoadSchema(db);
    await dropForBulkLoad(db, schema);
    const drop = seconds(t);
    t = performance.now();
    let lastLog = performance.now();
    const inserted = await seedActivations(dbs, { ...range, from: HISTORY_SMALL_ROWS + 1, to: large }, (done) => {
      if (performance.now() - lastLog < 10_000) return;
      lastLog = performance.now();
      console.log(`    ... ${fmt(done, 0)} rows inserted (${fmt(seconds(t), 0)} s)`);
    });
    const insert = seconds(t);
    t = performance.now();
    await rebuildAfterBulkLoad(dbs, schema);
    const rebuild = seconds(t);
    t = performance.now();
    await settle(db);
    const settleLarge = seconds(t);
    const total = seconds(t0);
    console.log(
      `  grew the table by ${fmt(inserted, 0)} activations (+ orders, order items) in ${fmt(total, 1)} s: ` +
        `insert ${fmt(insert, 1)} s (${fmt(inserted / insert, 0)} rows/s, ${dbs.length} connections, keys and indexes dropped), ` +
        `recreate and check ${schema.objects.length} keys, indexes and foreign keys ${fmt(rebuild, 1)} s, ` +
        `vacuum analyze + checkpoint ${fmt(settleLarge, 1)} s`,
    );
    const big = await measureSize(server, fx, large, opts, postgresCpu, db);
    printHistoryPhase(big, true);

    const ratio = (k: HistoryPage) => big.sequential[k].server.p50 / small.sequential[k].server.p50;
    const p50Ratio = { first: ratio('first'), cursor: ratio('cursor'), control: ratio('control') };
    const budgets: Budget[] = [];
    for (const pageKind of ['first', 'cursor'] as const) {
      const label = pageKind === 'first' ? 'first page' : 'next page (cursor)';
      budgets.push(
        p50Budget(`${label}: server-side p50 at ${fmt(large, 0)} rows`, big.sequential[pageKind].server.p50, HISTORY_BUDGET.maxP50Ms),
      );
      budgets.push(
        ratioBudget(
          `${label}: p50 at ${fmt(large, 0)} / p50 at ${fmt(HISTORY_SMALL_ROWS, 0)} rows`,
          p50Ratio[pageKind],
          HISTORY_BUDGET.maxRatio,
        ),
      );
    }
    const indexUsed = big.explain.length > 0 && big.explain.every((e) => e.usesHistoryIndex);
    budgets.push({
      name: `EXPLAIN at ${fmt(large, 0)} rows: every plan reads activations through ${HISTORY_INDEX}`,
      value: indexUsed,
      limit: 'index scan only',
      verdict: indexUsed ? 'PASS' : 'FAIL',
    });
    const report: HistoryReport = {
      route: `GET ${HISTORY_PATH}`,
      pageSize: DEFAULT_PAGE_SIZE,
      seededUsers: SEEDED_USERS,
      benchUserRows: HISTORY_USER_ROWS,
      requestsPerPage: opts.historyRequests,
      seedingSeconds: {
        small: { insert: smallInsert, settle: smallSettle },
        large: { drop, insert, rebuild, settle: settleLarge, total, rowsPerSecond: inserted / insert },
      },
      phases: [small, big],
      p50Ratio,
      budgets,
      verdict: verdictOf(budgets),
    };
    printHistoryReport(report);
    return report;
  } finally {
    for (const client of dbs) client.release();
    await pool.end();
  }
}
