/**
 * The company roster at scale (a phase of `npm run bench`): GET /b2b/roster with 10,000 and then
 * 100,000 roster rows in the table, in one run, mirroring the history phase (bench/history.ts); `--only roster` / `--no-roster`.
 *
 * - The bench company's 10,000 people are staged through POST /b2b/roster/stage in 500-row requests
 *   (the route's limit), one request at a time: rows per second is reported. The table then holds
 *   those 10,000 rows; after the measurement it grows to 100,000 with 90,000 rows of 999 other
 *   companies (and their staged accounts), inserted in bulk by SQL. The bench company's own rows
 *   stay exactly as they were, so both sizes answer the same pages.
 * - Each size measures (roster/measure.ts), over sequential requests on one keep-alive connection (no queueing), timed
 *   inside the server process (request event to the response's 'finish'): the first page, page 50
 *   (offset 980), the exact-contact search (a phone in the middle of the roster), and GET
 *   /auth/session as the control (it reads no roster: its ratio is the machine's own drift).
 * - EXPLAIN (ANALYZE, BUFFERS) of the statement texts the API prepared (page and total, plain and
 *   search), with the custom and the generic plan: at 100,000 rows no table is read by a sequential
 *   scan, and the roster is read through its indexes (the plain total reads roster_counts, the
 *   per-company counters the triggers keep, by primary key).
 *
 * Budgets (issue 12): each server-side p50 under 5 ms at 100,000 rows, p50 at 100,000 at most 1.5
 * times p50 at 10,000, every plan through indexes.
 *
 * The server runs in its own child process (roster/server.ts, forked with `--serve-roster`), like
 * the other phases' servers, so the load generator never shares its event loop.
 */
import type { PoolClient } from 'pg';
import { openPool } from '../src/db/database';
import type { Phase } from './lib/phase';
import { seconds } from './lib/processes';
import { p50Budget, printBudgets, printSizeLatencies, ratioBudget, verdictOf, type Budget } from './lib/report';
import { fmt } from './lib/stats';
import type { TimedAppDeps } from './lib/timed-app';
import { benchPerson, ROSTER_COMPANIES, ROSTER_LARGE_ROWS, ROSTER_SMALL_ROWS, seedOtherCompanies, settle } from './roster/data';
import { DEEP_PAGE, LABEL, measureSize, printSize, REQUESTS, type RosterRequest, type RosterSize } from './roster/measure';
import { startRosterServer } from './roster/server';

const STAGE_BATCH = 500;
const BUDGET = { maxP50Ms: 5, maxRatio: 1.5 };

export interface RosterDeps extends TimedAppDeps {
  /** Sequential requests per request kind and size (run.ts: --history-requests). */
  requests: number;
}

export interface RosterReport {
  route: string;
  requestsPerKind: number;
  staging: { rows: number; requests: number; seconds: number; rowsPerSecond: number; rejected: number };
  bulk: { rows: number; seconds: number; rowsPerSecond: number; settleSeconds: number };
  sizes: [RosterSize, RosterSize];
  p50Ratio: Record<RosterRequest, number>;
  budgets: Budget[];
  verdict: 'PASS' | 'FAIL';
}

/** Its own timed server, company and rows. */
export const rosterPhase: Phase<RosterReport> = {
  name: 'roster',
  plan: () => 'GET /b2b/roster at 10,000 and 100,000 roster rows',
  run: (ctx) => benchRoster({ ...ctx, requests: ctx.opts.historyRequests }),
  verdict: (report) => report.verdict,
};

async function benchRoster(deps: RosterDeps): Promise<RosterReport> {
  console.log(
    `\nbench: GET /b2b/roster at ${fmt(ROSTER_SMALL_ROWS, 0)} and ${fmt(ROSTER_LARGE_ROWS, 0)} roster rows across ` +
      `${fmt(ROSTER_COMPANIES, 0)} companies; the bench company holds ${fmt(ROSTER_SMALL_ROWS, 0)}, staged through the route`,
  );
  const pool = openPool(deps.databaseUrl, 2);
  let db: PoolClient | undefined;
  try {
    db = await pool.connect();
    const server = await startRosterServer(deps);
    const origin = `http://127.0.0.1:${server.port}`;
    const auth = { Authorization: `Bearer ${server.fixture.token}`, 'X-Client-Type': 'mobile' };

    // Staging through the route, 500 rows a request, one request at a time.
    let t = performance.now();
    let staged = 0;
    let rejected = 0;
    for (let from = 1; from <= ROSTER_SMALL_ROWS; from += STAGE_BATCH) {
      const rows = Array.from({ length: STAGE_BATCH }, (_, i) => benchPerson(from + i));
      const res = await fetch(`${origin}/b2b/roster/stage`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ rows }),
      });
      const body = (await res.json()) as { data?: { staged: number; rejected: unknown[] } };
      if (res.status !== 200 || !body.data) throw new Error(`stage answered ${res.status} ${JSON.stringify(body)}`);
      staged += body.data.staged;
      rejected += body.data.rejected.length;
    }
    const stageSeconds = seconds(t);
    if (staged !== ROSTER_SMALL_ROWS) throw new Error(`staged ${staged} of ${ROSTER_SMALL_ROWS} rows (${rejected} rejected)`);
    const staging = {
      rows: staged,
      requests: ROSTER_SMALL_ROWS / STAGE_BATCH,
      seconds: stageSeconds,
      rowsPerSecond: staged / stageSeconds,
      rejected,
    };
    console.log(
      `  staged ${fmt(staged, 0)} people through POST /b2b/roster/stage in ${staging.requests} requests of ${STAGE_BATCH}: ` +
        `${fmt(stageSeconds, 2)} s, ${fmt(staging.rowsPerSecond, 0)} rows/s`,
    );
    await settle(db);
    const small = await measureSize(server, db, deps.requests);
    printSize(small);

    // Growing to 100,000: the other 999 companies' rosters, by SQL.
    t = performance.now();
    const bulkRows = await seedOtherCompanies(db, ROSTER_LARGE_ROWS - ROSTER_SMALL_ROWS, ROSTER_COMPANIES - 1);
    const bulkSeconds = seconds(t);
    t = performance.now();
    await settle(db);
    const settleSeconds = seconds(t);
    console.log(
      `  grew the roster by ${fmt(bulkRows, 0)} rows (+ their accounts) of ${ROSTER_COMPANIES - 1} other companies in ` +
        `${fmt(bulkSeconds, 1)} s (${fmt(bulkRows / bulkSeconds, 0)} rows/s, indexes live); vacuum analyze + checkpoint ${fmt(settleSeconds, 1)} s`,
    );
    const large = await measureSize(server, db, deps.requests);
    printSize(large);

    const ratio = (k: RosterRequest) => large.sequential[k].server.p50 / small.sequential[k].server.p50;
    const p50Ratio = { first: ratio('first'), page50: ratio('page50'), search: ratio('search'), control: ratio('control') };
    const budgets: Budget[] = [];
    for (const k of ['first', 'page50', 'search'] as const) {
      for (const size of [small, large]) {
        budgets.push(
          p50Budget(`${LABEL[k]}: server-side p50 at ${fmt(size.rows, 0)} rows`, size.sequential[k].server.p50, BUDGET.maxP50Ms),
        );
      }
      budgets.push(
        ratioBudget(
          `${LABEL[k]}: p50 at ${fmt(ROSTER_LARGE_ROWS, 0)} / p50 at ${fmt(ROSTER_SMALL_ROWS, 0)} rows`,
          p50Ratio[k],
          BUDGET.maxRatio,
        ),
      );
    }
    // As in the history phase, plans are judged at the large size: at 10,000 rows the bench company is the whole
    // table and PostgreSQL rightly reads small tables whole.
    const indexed = large.explain.length > 0 && large.explain.every((e) => e.throughIndexes);
    budgets.push({
      name: `EXPLAIN at ${fmt(ROSTER_LARGE_ROWS, 0)} rows: every plan reads through indexes (no sequential scan)`,
      value: indexed,
      limit: 'index scans only',
      verdict: indexed ? 'PASS' : 'FAIL',
    });
    const report: RosterReport = {
      route: 'GET /b2b/roster',
      requestsPerKind: deps.requests,
      staging,
      bulk: { rows: bulkRows, seconds: bulkSeconds, rowsPerSecond: bulkRows / bulkSeconds, settleSeconds },
      sizes: [small, large],
      p50Ratio,
      budgets,
      verdict: verdictOf(budgets),
    };
    printReport(report);
    return report;
  } finally {
    db?.release();
    await pool.end();
  }
}

function printReport(r: RosterReport): void {
  const [small, large] = r.sizes;
  printSizeLatencies({
    route: r.route,
    requestsPerKind: r.requestsPerKind,
    sizes: ['10k', '100k'],
    kinds: REQUESTS,
    label: LABEL,
    latencies: [small.sequential, large.sequential],
    p50Ratio: r.p50Ratio,
    controlSkips: 'roster',
  });
  printBudgets(r.budgets);
  const plan = large.explain.find((e) => e.label === `page ${DEEP_PAGE}, generic plan`);
  if (plan) {
    console.log(`  plan (${plan.label}, ${fmt(large.rows, 0)} rows):`);
    for (const line of plan.text.split('\n')) console.log(`    ${line}`);
  }
}
