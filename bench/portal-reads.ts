/**
 * The portal and admin reads under load (a phase of `npm run bench`, `--only portal-reads`), issue 23.
 *
 * Data (portal-reads/seed.ts): a prepaid company (an active contract paid in full) whose roster is
 * staged through POST /b2b/roster/stage, 100 of its people with a link exported through POST
 * /b2b/roster/links/export and 5 of those activated on their seat; around it, by SQL
 * (generate_series), 1,000 other companies with a quote chain and a roster each, and 100,000
 * invitation links of 100,000 people. The company admin (b2b_admin) and a super_admin sign in
 * through HTTP.
 *
 * Measured: each route at `connections` (default 50), 3 s after a one-second warm-up, in 3 rounds:
 * in each round a bare Express route (its own process) once, then every read right after its own
 * measurement of GET /auth/session (the control, same server as the reads), so each ratio compares
 * neighbours in time on a box that drifts. For each: requests per second, p50 at that load (client
 * side), the API's CPU per request (its process, asked over IPC), PostgreSQL's CPU per request (all
 * its processes, from /proc) and the statements per request (as the API sends them, BEGIN/COMMIT
 * included, and as pg_stat_statements counts them, with the statements that took PostgreSQL's time);
 * a route's figures are the medians of its rounds. Then the company's roster grows to 20,000
 * (staged through the route) and everything is measured again.
 *
 * Budget: every read at least 50% of GET /auth/session's throughput at both sizes, and its ratio at
 * 20,000 entries within 20% of its ratio at 2,000. Ratios are within one run; absolute figures are
 * context. With --cpu-prof the API runs under the profiler (portal-reads.cpuprofile). With
 * PORTAL_CACHE_MS=0 in the environment the app keeps no answer, so every read is a miss: what a read
 * costs the first time after a change (the budget is not meant for that run).
 */
import autocannon from 'autocannon';
import type { Pool, PoolClient } from 'pg';
import { openPool } from '../src/db/database';
import type { Phase, PhaseContext } from './lib/phase';
import { printTable } from './lib/report';
import { serverCpu, type Child } from './lib/servers';
import { fmt, median } from './lib/stats';
import {
  activateSeats,
  EXPORTED_LINKS,
  insertPrepaidContract,
  OTHER_COMPANIES,
  OTHER_LINKS,
  SEAT_ACTIVATIONS,
  seedOthers,
  settle,
} from './portal-reads/seed';
import { askPortal, startPortalServer, type PortalServer } from './portal-reads/server';

export const SMALL_ROSTER = 2_000;
export const LARGE_ROSTER = 20_000;
const STAGE_BATCH = 500;
const SECONDS = 3;
const WARMUP_SECONDS = 1;
const ROUNDS = 3;
const MIN_RATIO = 0.5;
const MAX_DRIFT = 0.2;

interface Route {
  name: string;
  path: string;
  who: 'bare' | 'admin' | 'staff';
}

const CONTROL = 'GET /auth/session';
const ROUTES: Route[] = [
  { name: 'bare', path: '/bare', who: 'bare' },
  { name: CONTROL, path: '/auth/session', who: 'admin' },
  { name: 'GET /b2b/company', path: '/b2b/company', who: 'admin' },
  { name: 'GET /b2b/readiness', path: '/b2b/readiness', who: 'admin' },
  { name: 'GET /b2b/catalog', path: '/b2b/catalog', who: 'admin' },
  { name: 'GET /admin/companies', path: '/admin/companies', who: 'staff' },
  { name: 'GET /b2b/roster', path: '/b2b/roster', who: 'admin' },
  { name: 'GET /b2b/roster?page=50', path: '/b2b/roster?page=50', who: 'admin' },
  { name: 'GET /b2b/contract', path: '/b2b/contract', who: 'admin' },
  { name: 'GET /b2b/billing', path: '/b2b/billing', who: 'admin' },
  { name: 'GET /b2b/dashboard', path: '/b2b/dashboard', who: 'admin' },
  { name: 'GET /admin/links', path: '/admin/links', who: 'staff' },
  { name: 'GET /admin/quotes', path: '/admin/quotes', who: 'staff' },
];

export interface RouteMeasurement {
  route: string;
  rps: number;
  p50: number;
  p99: number;
  /** Microseconds of CPU per request: the API process, PostgreSQL (all its processes). */
  apiCpuMicros: number;
  postgresCpuMicros: number | null;
  /** Statements per request as the API sent them, and as pg_stat_statements counted them (null: not loaded). */
  statements: number;
  pgStatements: number | null;
  /** Throughput next to the bare route and to GET /auth/session. */
  ofBare: number;
  ofSession: number;
  non2xx: number;
  /** The statements that took most of PostgreSQL's time (pg_stat_statements), per request. */
  top: Array<{ query: string; callsPerRequest: number; msPerRequest: number }>;
}

export interface PortalReadsReport {
  roster: { small: number; large: number };
  small: RouteMeasurement[];
  large: RouteMeasurement[];
  budgets: Array<{ route: string; ofSessionSmall: number; ofSessionLarge: number; drift: number; verdict: 'PASS' | 'FAIL' }>;
  verdict: 'PASS' | 'FAIL';
}

export const portalReadsPhase: Phase<PortalReadsReport> = {
  name: 'portal-reads',
  plan: (opts) =>
    `portal and admin reads at ${opts.connections} connections, ${ROUTES.length - 2} routes x ${ROUNDS} rounds, each next to ` +
    `GET /auth/session, ${WARMUP_SECONDS}+${SECONDS}s each, ` +
    `at ${fmt(SMALL_ROSTER, 0)} and ${fmt(LARGE_ROSTER, 0)} roster entries` +
    (process.env.PORTAL_CACHE_MS === '0' ? ' (PORTAL_CACHE_MS=0: no answer kept, every read a miss)' : ''),
  run: (ctx) => benchPortalReads(ctx),
  verdict: (r) => r.verdict,
};

/** The n-th staged person of the bench company: a unique phone, an e-mail on every other row. */
const person = (n: number) => ({
  name: `Portal person ${n}`,
  phone: `+4479${String(n).padStart(8, '0')}`,
  ...(n % 2 === 0 ? { email: `portal.person.${n}@portal-bench.example` } : {}),
  identityType: 'resident',
  nationality: 'Egypt',
});

async function benchPortalReads(ctx: PhaseContext): Promise<PortalReadsReport> {
  console.log(
    `\nbench: portal and admin reads under load: ${fmt(OTHER_COMPANIES, 0)} other companies, ${fmt(OTHER_LINKS, 0)} links; ` +
      `a prepaid company of ${fmt(SMALL_ROSTER, 0)} then ${fmt(LARGE_ROSTER, 0)} entries, ${EXPORTED_LINKS} exported links, ` +
      `${SEAT_ACTIVATIONS} seat activations`,
  );
  const pool = openPool(ctx.databaseUrl, 2);
  let db: PoolClient | undefined;
  try {
    db = await pool.connect();
    let t = performance.now();
    await seedOthers(db);
    console.log(`  seeded the other companies, quotes, rosters and links by SQL in ${fmt((performance.now() - t) / 1000, 1)} s`);
    const bare = await ctx.startServer('bare');
    const server = await startPortalServer({ databaseUrl: ctx.databaseUrl, onCleanup: ctx.onCleanup, cpuProf: ctx.opts.cpuProf });
    const { itemId, packageId } = await insertPrepaidContract(db, server.admin.companyId);
    t = performance.now();
    const rosterIds = await stage(server, 1, SMALL_ROSTER);
    console.log(`  staged ${fmt(SMALL_ROSTER, 0)} people through the route in ${fmt((performance.now() - t) / 1000, 1)} s`);
    await exportLinks(server, rosterIds.slice(0, EXPORTED_LINKS), itemId);
    await activateSeats(db, server.admin.companyId, packageId, SEAT_ACTIVATIONS);
    await settle(db);
    const stats = await pgStats(pool);

    const small = await measureAll(ctx, server, bare, stats, SMALL_ROSTER);
    t = performance.now();
    await stage(server, SMALL_ROSTER + 1, LARGE_ROSTER);
    console.log(`  staged ${fmt(LARGE_ROSTER - SMALL_ROSTER, 0)} more people in ${fmt((performance.now() - t) / 1000, 1)} s`);
    await settle(db);
    const large = await measureAll(ctx, server, bare, stats, LARGE_ROSTER);

    const budgets = ROUTES.filter((r) => r.who !== 'bare' && r.name !== CONTROL).map((r) => {
      const s = small.find((m) => m.route === r.name)!;
      const l = large.find((m) => m.route === r.name)!;
      const drift = l.ofSession / s.ofSession - 1;
      const ok = !s.non2xx && !l.non2xx && s.ofSession >= MIN_RATIO && l.ofSession >= MIN_RATIO && Math.abs(drift) <= MAX_DRIFT;
      return {
        route: r.name,
        ofSessionSmall: s.ofSession,
        ofSessionLarge: l.ofSession,
        drift,
        verdict: ok ? ('PASS' as const) : ('FAIL' as const),
      };
    });
    const report: PortalReadsReport = {
      roster: { small: SMALL_ROSTER, large: LARGE_ROSTER },
      small,
      large,
      budgets,
      verdict: budgets.every((b) => b.verdict === 'PASS') ? 'PASS' : 'FAIL',
    };
    printBudgets(report);
    return report;
  } finally {
    db?.release();
    await pool.end();
  }
}

function authHeaders(server: PortalServer, who: Route['who']): Record<string, string> {
  if (who === 'bare') return {};
  const token = who === 'admin' ? server.admin.token : server.staffToken;
  return { Authorization: `Bearer ${token}`, 'X-Client-Type': 'mobile' };
}

async function post(server: PortalServer, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: 'POST',
    headers: { ...authHeaders(server, 'admin'), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> };
  if (res.status !== 200 || !json.data) throw new Error(`POST ${path} answered ${res.status} ${JSON.stringify(json).slice(0, 400)}`);
  return json.data;
}

/** People from..to staged through the route, 500 a request; returns the roster ids of the company, oldest first. */
async function stage(server: PortalServer, from: number, to: number): Promise<string[]> {
  for (let n = from; n <= to; n += STAGE_BATCH) {
    const rows = Array.from({ length: Math.min(STAGE_BATCH, to - n + 1) }, (_, i) => person(n + i));
    const data = await post(server, '/b2b/roster/stage', { rows });
    if (data.staged !== rows.length)
      throw new Error(`staged ${String(data.staged)} of ${rows.length}: ${JSON.stringify(data).slice(0, 300)}`);
  }
  const res = await fetch(`http://127.0.0.1:${server.port}/b2b/roster?limit=100`, { headers: authHeaders(server, 'admin') });
  const body = (await res.json()) as { data: { entries: Array<{ id: string }>; total: number } };
  if (body.data.total !== to) throw new Error(`the roster holds ${body.data.total}, not ${to}`);
  return body.data.entries.map((i) => i.id);
}

async function exportLinks(server: PortalServer, rosterIds: string[], contractItemId: string): Promise<void> {
  const data = await post(server, '/b2b/roster/links/export', { rosterIds, contractItemId });
  const entries = data.entries as unknown[];
  if (entries.length !== rosterIds.length)
    throw new Error(`exported ${entries.length} of ${rosterIds.length}: ${JSON.stringify(data.skipped)}`);
}

interface PgStats {
  reset(): Promise<void>;
  top(requests: number): Promise<{ calls: number; top: RouteMeasurement['top'] } | null>;
}

/** pg_stat_statements, when the bench's PostgreSQL preloads it (lib/database.ts); else nothing. */
async function pgStats(pool: Pool): Promise<PgStats> {
  const loaded = await pool
    .query('create extension if not exists pg_stat_statements')
    .then(() => pool.query('select 1 from pg_stat_statements limit 1'))
    .then(
      () => true,
      () => false,
    );
  if (!loaded) console.log('  (pg_stat_statements is not loaded: statements per request counted by the API only)');
  const mine = `query not ilike '%pg_stat_statements%'`;
  return {
    reset: async () => {
      if (loaded) await pool.query('select pg_stat_statements_reset()');
    },
    top: async (requests) => {
      if (!loaded) return null;
      const { rows } = await pool.query<{ query: string; calls: string; ms: number }>(
        `select query, calls, total_exec_time as ms from pg_stat_statements where ${mine} order by total_exec_time desc`,
      );
      const calls = rows.reduce((s, r) => s + Number(r.calls), 0);
      return {
        calls,
        top: rows.slice(0, 4).map((r) => ({
          query: r.query.replace(/\s+/g, ' ').slice(0, 140),
          callsPerRequest: Number(r.calls) / requests,
          msPerRequest: r.ms / requests,
        })),
      };
    },
  };
}

/** One measurement of one route: warm-up, then SECONDS under load, with the CPU and statements it cost. */
async function measureOnce(ctx: PhaseContext, server: PortalServer, bare: Child, stats: PgStats, route: Route): Promise<RouteMeasurement> {
  const target = route.who === 'bare' ? bare : server;
  const url = `http://127.0.0.1:${target.port}${route.path}`;
  const run = (duration: number) =>
    autocannon({ url, headers: authHeaders(server, route.who), connections: ctx.opts.connections, duration });
  await run(WARMUP_SECONDS);
  await stats.reset();
  const before = {
    cpu: await serverCpu(target),
    pg: ctx.postgresCpu(),
    statements: (await askPortal(server, 'statements', 'statements')).count,
  };
  const r = await run(SECONDS);
  const cpu = (await serverCpu(target)) - before.cpu;
  const pgCpu = ctx.postgresCpu();
  const statements = route.who === 'bare' ? 0 : (await askPortal(server, 'statements', 'statements')).count - before.statements;
  const n = r.requests.total || 1;
  const pg = await stats.top(n);
  return {
    route: route.name,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    apiCpuMicros: cpu / n,
    postgresCpuMicros: pgCpu === null || before.pg === null ? null : (pgCpu - before.pg) / n,
    statements: statements / n,
    pgStatements: pg ? pg.calls / n : null,
    ofBare: 0,
    ofSession: 0,
    non2xx: r.non2xx + r.errors,
    top: pg?.top ?? [],
  };
}

/** The median run of a route's rounds (by its ratio to the session route), other figures the medians of the rounds. */
function medianOf(runs: RouteMeasurement[]): RouteMeasurement {
  const by = (f: (m: RouteMeasurement) => number) => median(runs.map(f));
  const middle = [...runs].sort((a, b) => a.ofSession - b.ofSession)[Math.floor((runs.length - 1) / 2)];
  return {
    ...middle,
    rps: by((m) => m.rps),
    p50: by((m) => m.p50),
    p99: by((m) => m.p99),
    apiCpuMicros: by((m) => m.apiCpuMicros),
    postgresCpuMicros: runs.some((m) => m.postgresCpuMicros === null) ? null : by((m) => m.postgresCpuMicros!),
    statements: by((m) => m.statements),
    pgStatements: runs.some((m) => m.pgStatements === null) ? null : by((m) => m.pgStatements!),
    ofBare: by((m) => m.ofBare),
    ofSession: by((m) => m.ofSession),
    non2xx: runs.reduce((s, m) => s + m.non2xx, 0),
  };
}

/**
 * ROUNDS rounds; in each, the bare route once, then every read right after its own measurement of
 * GET /auth/session, so each ratio compares two neighbours in time (the box drifts by tens of percent
 * within a minute). A route's figures are the medians of its rounds.
 */
async function measureAll(
  ctx: PhaseContext,
  server: PortalServer,
  bare: Child,
  stats: PgStats,
  roster: number,
): Promise<RouteMeasurement[]> {
  console.log(
    `\n  ${fmt(roster, 0)} roster entries, ${ctx.opts.connections} connections, ${ROUNDS} rounds, ${SECONDS} s each after ` +
      `${WARMUP_SECONDS} s of warm-up, each read next to its own measurement of ${CONTROL}:`,
  );
  for (const route of ROUTES) {
    const check = await fetch(`http://127.0.0.1:${route.who === 'bare' ? bare.port : server.port}${route.path}`, {
      headers: authHeaders(server, route.who),
    });
    if (check.status !== 200) throw new Error(`${route.name} answered ${check.status} ${(await check.text()).slice(0, 300)}`);
  }
  const runs = new Map<string, RouteMeasurement[]>(ROUTES.map((r) => [r.name, []]));
  const control = ROUTES.find((r) => r.name === CONTROL)!;
  for (let round = 0; round < ROUNDS; round++) {
    const bareRun = await measureOnce(ctx, server, bare, stats, ROUTES[0]);
    runs.get(ROUTES[0].name)!.push(bareRun);
    for (const route of ROUTES.filter((r) => r.who !== 'bare' && r !== control)) {
      const session = await measureOnce(ctx, server, bare, stats, control);
      const m = await measureOnce(ctx, server, bare, stats, route);
      for (const x of [session, m]) {
        x.ofBare = x.rps / bareRun.rps;
        x.ofSession = x.rps / session.rps;
      }
      runs.get(CONTROL)!.push(session);
      runs.get(route.name)!.push(m);
    }
  }
  const out = ROUTES.map((r) => medianOf(runs.get(r.name)!));
  out[0].ofBare = 1;
  out[0].ofSession = out[0].rps / out[1].rps;
  const rows = [['route', 'req/s', '% bare', '% session', 'p50 ms', 'p99 ms', 'API us/req', 'pg us/req', 'stmts/req', 'pgss/req']];
  for (const m of out) {
    rows.push([
      m.route + (m.non2xx ? ` (${m.non2xx} non-2xx!)` : ''),
      fmt(m.rps, 0),
      fmt(m.ofBare * 100, 1),
      fmt(m.ofSession * 100, 1),
      fmt(m.p50, 1),
      fmt(m.p99, 1),
      fmt(m.apiCpuMicros, 0),
      m.postgresCpuMicros === null ? 'n/a' : fmt(m.postgresCpuMicros, 0),
      fmt(m.statements, 2),
      m.pgStatements === null ? 'n/a' : fmt(m.pgStatements, 2),
    ]);
  }
  printTable(rows, (i) => i >= 1);
  for (const m of out) {
    if (!m.top.length) continue;
    console.log(`  ${m.route}: PostgreSQL's time by statement (calls and ms per request)`);
    for (const s of m.top)
      console.log(`    ${fmt(s.callsPerRequest, 2).padStart(5)} x ${fmt(s.msPerRequest, 3).padStart(7)} ms  ${s.query}`);
  }
  return out;
}

function printBudgets(r: PortalReadsReport): void {
  console.log(
    `\n  Budget: every read at least ${MIN_RATIO * 100}% of ${CONTROL}'s throughput at ${fmt(r.roster.small, 0)} and ` +
      `${fmt(r.roster.large, 0)} entries, within ${MAX_DRIFT * 100}% of its own ratio between the two:`,
  );
  for (const b of r.budgets) {
    console.log(
      `  ${b.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'}  ${b.route.padEnd(26)} ${fmt(b.ofSessionSmall * 100, 1).padStart(5)}% / ` +
        `${fmt(b.ofSessionLarge * 100, 1).padStart(5)}% of the session route (${b.drift >= 0 ? '+' : ''}${fmt(b.drift * 100, 1)}%)`,
    );
  }
}
