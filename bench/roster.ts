/**
 * The company roster at scale (a phase of `npm run bench`): GET /b2b/roster with 10,000 and then
 * 100,000 roster rows in the table, in one run, mirroring the history phase (run.ts).
 *
 * - The bench company's 10,000 people are staged through POST /b2b/roster/stage in 500-row requests
 *   (the route's limit), one request at a time: rows per second is reported. The table then holds
 *   those 10,000 rows; after the measurement it grows to 100,000 with 90,000 rows of 999 other
 *   companies (and their staged accounts), inserted in bulk by SQL. The bench company's own rows
 *   stay exactly as they were, so both sizes answer the same pages.
 * - Each size measures, over sequential requests on one keep-alive connection (no queueing), timed
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
 * The server runs in its own child process (this file forked with `--serve-roster`), like run.ts's
 * servers, so the load generator never shares its event loop.
 */
import type { ChildProcess } from 'node:child_process';
import type { PoolClient } from 'pg';
import { nativePool, openOrm } from '../src/db/orm';
import { createPersonalDataCipher } from '../src/lib/crypto';
import { createMemoryMessageSender } from '../src/providers/messages';
import { asker, captureStatements, seconds, type TimingSamples } from './processes';
import { benchConfig, type CompanyAdmin, forkTimedApp, serveTimedApp, signedInCompanyAdmin, type TimedAppDeps } from './timed-app';
import { fmt, latencyStats, type LatencyStats } from './stats';

export const ROSTER_SMALL_ROWS = 10_000;
export const ROSTER_LARGE_ROWS = 100_000;
export const ROSTER_COMPANIES = 1_000;
const STAGE_BATCH = 500;
const WARMUP_REQUESTS = 200;
const BUDGET = { maxP50Ms: 5, maxRatio: 1.5 };
const PAGE_LIMIT = 20;
const DEEP_PAGE = 50;
const PHONE = '+966512349876';
/** The statements GET /b2b/roster prepares (src/roster/repository.ts), by their names. */
const STATEMENTS = { page: 'roster-page-all', total: 'roster-total-counted', searchPage: 'roster-page-q', searchTotal: 'roster-total-q' };

const REQUESTS = ['first', 'page50', 'search', 'control'] as const;
type RosterRequest = (typeof REQUESTS)[number];
const LABEL: Record<RosterRequest, string> = {
  first: 'first page',
  page50: `page ${DEEP_PAGE}`,
  search: 'exact-contact search',
  control: 'control /auth/session',
};

export interface RosterDeps extends TimedAppDeps {
  /** Sequential requests per request kind and size (run.ts: --history-requests). */
  requests: number;
}

interface PlanCheck {
  label: string;
  /** How each table is read, e.g. `roster_entries: Index Only Scan using roster_entries_company_created_index`. */
  access: string[];
  throughIndexes: boolean;
  executionMs: number;
  sharedHit: number;
  sharedRead: number;
  text: string;
}

interface RosterSize {
  rows: number;
  benchCompanyRows: number;
  companies: number;
  sequential: Record<RosterRequest, { url: string; server: LatencyStats; client: LatencyStats }>;
  explain: PlanCheck[];
}

interface Budget {
  name: string;
  value: number | boolean;
  limit: string;
  verdict: 'PASS' | 'FAIL';
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

// ---------------------------------------------------------------------------
// The server (child process)
// ---------------------------------------------------------------------------

type Fixture = CompanyAdmin;

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; fixture: Fixture }
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> }
  | { type: 'sql'; statements: Record<string, string> };

/** The app, timed per URL for the roster and the control, capturing the roster statements' texts. */
async function serveRoster(): Promise<void> {
  const messages = createMemoryMessageSender();
  let statements: Record<string, string> = {};
  await serveTimedApp({
    messages,
    timed: ['/b2b/roster', '/auth/session'],
    method: 'GET',
    beforeApp: (pool) => (statements = captureStatements(pool, STATEMENTS)),
    onMessage: (msg, send) => {
      if (msg === 'sql') send({ type: 'sql', statements: { ...statements } });
    },
    fixture: async (baseUrl, pool) => ({
      fixture: await signedInCompanyAdmin(baseUrl, pool, messages.messages, { phone: PHONE, crNumber: '9000000001', name: 'Roster bench' }),
    }),
  });
}

// ---------------------------------------------------------------------------
// The phase (parent process)
// ---------------------------------------------------------------------------

interface Child {
  proc: ChildProcess;
  port: number;
  fixture: Fixture;
}

async function startServer(deps: RosterDeps): Promise<Child> {
  const { proc, ready } = await forkTimedApp<Ready>(deps, { file: __filename, flag: '--serve-roster', name: 'roster server' });
  return { proc, port: ready.port, fixture: ready.fixture };
}

const ask = asker<FromChild>();
/** The n-th staged person of the bench company: a unique phone, and an e-mail on every other row. */
const benchPerson = (n: number) => ({
  name: `Bench person ${n}`,
  phone: `+4477${String(n).padStart(8, '0')}`,
  ...(n % 2 === 0 ? { email: `bench.person.${n}@roster.example` } : {}),
  identityType: n % 3 === 0 ? 'visitor' : 'resident',
  nationality: n % 5 === 0 ? null : 'Egypt',
});

export async function rosterPhase(deps: RosterDeps): Promise<RosterReport> {
  console.log(
    `\nbench: GET /b2b/roster at ${fmt(ROSTER_SMALL_ROWS, 0)} and ${fmt(ROSTER_LARGE_ROWS, 0)} roster rows across ` +
      `${fmt(ROSTER_COMPANIES, 0)} companies; the bench company holds ${fmt(ROSTER_SMALL_ROWS, 0)}, staged through the route`,
  );
  const orm = await openOrm(deps.databaseUrl, 2);
  let db: PoolClient | undefined;
  try {
    db = await (await nativePool(orm)).connect();
    const server = await startServer(deps);
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
    const small = await measure(server, db, deps);
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
    const large = await measure(server, db, deps);
    printSize(large);

    const ratio = (k: RosterRequest) => large.sequential[k].server.p50 / small.sequential[k].server.p50;
    const p50Ratio = { first: ratio('first'), page50: ratio('page50'), search: ratio('search'), control: ratio('control') };
    const budgets: Budget[] = [];
    for (const k of ['first', 'page50', 'search'] as const) {
      for (const size of [small, large]) {
        const p50 = size.sequential[k].server.p50;
        budgets.push({
          name: `${LABEL[k]}: server-side p50 at ${fmt(size.rows, 0)} rows`,
          value: p50,
          limit: `< ${BUDGET.maxP50Ms} ms`,
          verdict: p50 < BUDGET.maxP50Ms ? 'PASS' : 'FAIL',
        });
      }
      budgets.push({
        name: `${LABEL[k]}: p50 at ${fmt(ROSTER_LARGE_ROWS, 0)} / p50 at ${fmt(ROSTER_SMALL_ROWS, 0)} rows`,
        value: p50Ratio[k],
        limit: `<= ${BUDGET.maxRatio}`,
        verdict: p50Ratio[k] <= BUDGET.maxRatio ? 'PASS' : 'FAIL',
      });
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
      verdict: budgets.every((b) => b.verdict === 'PASS') ? 'PASS' : 'FAIL',
    };
    printReport(report);
    return report;
  } finally {
    db?.release();
    await orm.close();
  }
}

/**
 * `rows` roster rows spread over `companies` approved companies, each row with its own staged
 * account (phone and e-mail ciphertext placeholders, unique 64-hex hashes), in set operations.
 */
async function seedOtherCompanies(db: PoolClient, rows: number, companies: number): Promise<number> {
  await db.query(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash, contact_phone_encrypted,
                            contact_phone_hash, status, approved_at, created_at, updated_at)
     select md5('bench-company-' || c)::uuid, (8000000000 + c)::text, 'Bench company ' || c, 'Contact', 'v1.a.b.c', repeat('a', 64),
            'v1.d.e.f', repeat('b', 64), 'approved', now(), now() - interval '30 days', now()
       from generate_series(1, $1::int) c`,
    [companies],
  );
  let inserted = 0;
  for (let from = 1; from <= rows; from += 30_000) {
    const to = Math.min(rows, from + 29_999);
    const res = await db.query(
      `with people as materialized (
         select n, md5('bench-roster-user-' || n)::uuid as user_id,
                md5('bench-company-' || (1 + n % $3::int))::uuid as company_id,
                date_trunc('milliseconds', now() - random() * interval '30 days') as created_at
           from generate_series($1::int, $2::int) n
       ), u as (
         insert into users (id, name, phone_encrypted, phone_hash, email_encrypted, email_hash, identity_type, app_role, is_active,
                            created_at, updated_at)
         select user_id, 'Bench beneficiary ' || n, 'v1.x.y.z', encode(sha256(('p' || n)::bytea), 'hex'),
                case when n % 2 = 0 then 'v1.x.y.z' end, case when n % 2 = 0 then encode(sha256(('e' || n)::bytea), 'hex') end,
                'resident', 'end_user', true, created_at, created_at
           from people
       )
       insert into roster_entries (company_id, user_id, nationality, status, created_at, updated_at)
       select company_id, user_id, 'Egypt', case when n % 10 = 0 then 'enabled' else 'staged' end, created_at, created_at from people`,
      [from, to, companies],
    );
    inserted += res.rowCount ?? 0;
  }
  return inserted;
}

async function settle(db: PoolClient): Promise<void> {
  await db.query('vacuum (analyze) users, companies, company_users, roster_entries, invitation_links');
  await db.query('checkpoint');
}

async function measure(server: Child, db: PoolClient, deps: RosterDeps): Promise<RosterSize> {
  const origin = `http://127.0.0.1:${server.port}`;
  const headers = { Authorization: `Bearer ${server.fixture.token}`, 'X-Client-Type': 'mobile' };
  const searched = benchPerson(ROSTER_SMALL_ROWS / 2).phone;
  const paths: Record<RosterRequest, string> = {
    first: '/b2b/roster',
    page50: `/b2b/roster?page=${DEEP_PAGE}`,
    search: `/b2b/roster?search=${encodeURIComponent(searched)}`,
    control: '/auth/session',
  };
  const get = async (path: string) => {
    const start = performance.now();
    const res = await fetch(`${origin}${path}`, { headers });
    const body = (await res.json()) as { data?: { entries?: Array<{ phone: string | null }>; total?: number } };
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  // The answers are what they should be before anything is timed.
  const first = (await get(paths.first)).body.data;
  const deep = (await get(paths.page50)).body.data;
  const found = (await get(paths.search)).body.data;
  if (first?.entries?.length !== PAGE_LIMIT || first.total !== ROSTER_SMALL_ROWS)
    throw new Error(`unexpected first page: ${JSON.stringify(first)}`);
  if (deep?.entries?.length !== PAGE_LIMIT) throw new Error('page 50 is not full');
  if (found?.total !== 1 || found.entries?.[0].phone !== searched)
    throw new Error(`the search did not find ${searched}: ${JSON.stringify(found)}`);

  for (let i = 0; i < WARMUP_REQUESTS; i++) for (const k of REQUESTS) await get(paths[k]);
  await ask(server, 'timing', 'timing'); // drop the warm-up samples
  const client: Record<RosterRequest, number[]> = { first: [], page50: [], search: [], control: [] };
  for (let i = 0; i < deps.requests; i++) for (const k of REQUESTS) client[k].push((await get(paths[k])).ms);
  const { samples } = await ask(server, 'timing', 'timing');
  const sequential = {} as RosterSize['sequential'];
  for (const k of REQUESTS) {
    const s = samples[paths[k]];
    if (!s || s.ms.length !== deps.requests || s.non2xx) throw new Error(`server-side timing of ${paths[k]}: ${s?.ms.length ?? 0} samples`);
    sequential[k] = { url: paths[k], server: latencyStats(s.ms), client: latencyStats(client[k]) };
  }

  const { statements } = await ask(server, 'sql', 'sql');
  const companyId = server.fixture.companyId;
  const now = new Date().toISOString();
  const config = benchConfig();
  const hash = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY).lookupHash(searched);
  const offset = (DEEP_PAGE - 1) * PAGE_LIMIT;
  const explain = [
    ...(await explainStatement(db, 'first page', statements.page, [companyId, 0, PAGE_LIMIT, now])),
    ...(await explainStatement(db, `page ${DEEP_PAGE}`, statements.page, [companyId, offset, PAGE_LIMIT, now])),
    ...(await explainStatement(db, 'total (counters)', statements.total, [companyId])),
    ...(await explainStatement(db, 'search page', statements.searchPage, [companyId, hash, 0, PAGE_LIMIT, now])),
    ...(await explainStatement(db, 'search total', statements.searchTotal, [companyId, hash])),
  ];
  const [{ n }] = (await db.query<{ n: number }>('select count(*)::int as n from roster_entries')).rows;
  const [{ c }] = (await db.query<{ c: number }>('select count(distinct company_id)::int as c from roster_entries')).rows;
  return { rows: n, benchCompanyRows: first.total, companies: c, sequential, explain };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, visit: (n: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of a statement text the API prepared, as a prepared statement with the
 * custom and the generic plan. Through indexes: no sequential scan of any table, and roster_entries
 * read only by index scans of its own indexes.
 */
async function explainStatement(
  db: PoolClient,
  label: string,
  text: string | undefined,
  values: Array<string | number>,
): Promise<PlanCheck[]> {
  if (!text) throw new Error(`the server did not capture the statement of ${label}`);
  const name = `bench_roster_${label.replace(/\W/g, '_')}`;
  const args = values.map((v) => (typeof v === 'number' ? String(v) : db.escapeLiteral(v))).join(', ');
  const out: PlanCheck[] = [];
  await db.query(`prepare ${name} as ${text}`);
  try {
    for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
      await db.query(`set plan_cache_mode = ${mode}`);
      await db.query(`execute ${name}(${args})`);
      const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) execute ${name}(${args})`);
      const raw = rows[0]['QUERY PLAN'];
      const top = ((typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode; 'Execution Time': number }>)[0];
      const access: string[] = [];
      let seq = false;
      let rosterOk = true;
      walk(top.Plan, (node) => {
        if (node['Node Type'] === 'Seq Scan') seq = true;
        if (!node['Relation Name'] && !node['Index Name']) return;
        const on = node['Relation Name'] ? `${node['Relation Name']}: ` : '';
        access.push(`${on}${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
        if (node['Index Name']?.startsWith('roster_entries') === false && node['Relation Name'] === 'roster_entries') rosterOk = false;
      });
      const textPlan = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) execute ${name}(${args})`);
      out.push({
        label: `${label}, ${mode === 'force_custom_plan' ? 'custom' : 'generic'} plan`,
        access,
        throughIndexes: !seq && rosterOk && access.some((a) => / using roster_/.test(a)),
        executionMs: top['Execution Time'],
        sharedHit: top.Plan['Shared Hit Blocks'] ?? 0,
        sharedRead: top.Plan['Shared Read Blocks'] ?? 0,
        text: textPlan.rows.map((r) => r['QUERY PLAN']).join('\n'),
      });
    }
  } finally {
    await db.query('reset plan_cache_mode');
    await db.query(`deallocate ${name}`);
  }
  return out;
}

function printSize(s: RosterSize): void {
  console.log(`  ${fmt(s.rows, 0)} roster rows in ${fmt(s.companies, 0)} companies (the bench company's: ${fmt(s.benchCompanyRows, 0)}):`);
  for (const k of REQUESTS) {
    const q = s.sequential[k];
    console.log(
      `    ${`${LABEL[k]}:`.padEnd(28)} server-side p50 ${fmt(q.server.p50, 2)} ms, p99 ${fmt(q.server.p99, 2)} ms ` +
        `(client p50 ${fmt(q.client.p50, 2)} ms), sequential`,
    );
  }
  for (const e of s.explain) {
    console.log(
      `    EXPLAIN ${e.label}: ${e.throughIndexes ? 'through indexes' : '*** NOT through indexes ***'}; execution ${fmt(e.executionMs, 3)} ms, ` +
        `buffers hit ${e.sharedHit}, read ${e.sharedRead}; ${e.access.join(', ')}`,
    );
  }
}

function printReport(r: RosterReport): void {
  const [small, large] = r.sizes;
  console.log(`\n${r.route}, server-side latency of ${fmt(r.requestsPerKind, 0)} sequential requests each (one connection, no queueing):`);
  const rows = [['request', 'p50 ms 10k', 'p50 ms 100k', 'ratio', 'p99 ms 10k', 'p99 ms 100k']];
  for (const k of REQUESTS) {
    const a = small.sequential[k].server;
    const b = large.sequential[k].server;
    rows.push([LABEL[k], fmt(a.p50, 2), fmt(b.p50, 2), fmt(r.p50Ratio[k], 2), fmt(a.p99, 2), fmt(b.p99, 2)]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.log(row.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
  console.log('  (the control reads no roster: its ratio is how much the machine itself drifted between the sizes)');
  for (const b of r.budgets) {
    const value =
      typeof b.value === 'boolean' ? (b.value ? 'yes' : 'no') : b.name.includes('/ p50') ? fmt(b.value, 2) : `${fmt(b.value, 2)} ms`;
    console.log(`  ${b.name}: ${value} (${b.limit}) ${b.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'}`);
  }
  const plan = large.explain.find((e) => e.label === `page ${DEEP_PAGE}, generic plan`);
  if (plan) {
    console.log(`  plan (${plan.label}, ${fmt(large.rows, 0)} rows):`);
    for (const line of plan.text.split('\n')) console.log(`    ${line}`);
  }
}

if (require.main === module && process.argv[2] === '--serve-roster') void serveRoster();
