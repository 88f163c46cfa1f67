/**
 * The B2B portal's heavy routes (a phase of `npm run bench`, `--only b2b` / `--no-b2b`), issue 14:
 *
 * - POST /b2b/roster/links/send with 500 entries (the route's limit): mint and deliver, through the
 *   development message sink the app uses without providers (createFileMessageSender, one JSON line
 *   per message, here in a temporary file), to 500 staged people with an e-mail and a phone each
 *   (1,000 messages a send). Entries per second = 500 / the request's wall time.
 * - POST /b2b/roster/links/export with the same 500 entries: mint and return the raw links.
 *   Each is repeated (send, export, send, ...) after one unmeasured warm-up of each; every mint
 *   re-mints the same people (revoking their previous links), which the pipeline allows. The
 *   company is flexible and funded for far more than 500 seats, so every entry is accepted.
 * - GET /b2b/billing for a company with 10,000 charges (paid company orders with an activated
 *   activation and a completed payment, odd-halala totals over ~310 days), next to 500 of its
 *   orders whose activation failed or was cancelled and 20,000 consumer orders, all by SQL
 *   (bench/b2b-fixtures.ts). Server-side p50 and p99 over sequential requests on one keep-alive
 *   connection, timed inside the server process (request event to the response's 'finish'), with
 *   GET /auth/session as the control (the machine's own drift); budget: p50 under 20 ms. The
 *   service keeps a company's charges while their version is unchanged (src/billing/service.ts), so
 *   these sequential reads are the warm path; the same route is then timed over 50 requests each
 *   after a write to one charge (its activation updated, which raises the version): the cold path,
 *   reported next to it without a budget. Before timing, the answer is checked: 10,000 charges
 *   newest first, summing exactly to outstandingSar, which is the Σ PostgreSQL computes from the
 *   seeded rows. EXPLAIN (ANALYZE, BUFFERS) of the charges statement is printed.
 *
 * The server runs in its own child process (this file forked with `--serve-b2b`), like the other
 * phases' servers, so the client never shares its event loop. Both companies' admins sign up and in
 * through HTTP; companies, contracts and charges are written by SQL (the roster through the route).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { BILLING_CHARGES_SQL } from '../src/billing/repository';
import { nativePool, openOrm } from '../src/db/orm';
import { createFileMessageSender, createMemoryMessageSender, type MessageSender } from '../src/providers/messages';
import { insertFlexibleContract, insertPackages, seedCharges, type Queryable } from './b2b-fixtures';
import { asker, type TimingSamples } from './processes';
import { type CompanyAdmin, forkTimedApp, serveTimedApp, signedInCompanyAdmin, type TimedAppDeps } from './timed-app';
import { fmt, latencyStats, median, type LatencyStats } from './stats';

const ENTRIES = 500;
const MINT_ROUNDS = 3;
const CHARGES = 10_000;
const DEAD_ORDERS = 500;
const CONSUMER_ORDERS = 20_000;
const BILLING_REQUESTS = 300;
/** Requests each preceded by a write to one of the company's charges (its kept read is stale). */
const COLD_REQUESTS = 50;
const WARMUP_REQUESTS = 30;
const BILLING_BUDGET_MS = 20;
const ADMINS = { links: '+966512340011', billing: '+966512340012' } as const;
const CONTROL = '/auth/session';
/** The purpose src/links gives an invitation message. */
const INVITATION = 'b2b.invitation';

export type B2bDeps = TimedAppDeps;

interface MintRun {
  round: number;
  entries: number;
  /** Client wall time of the one request. */
  ms: number;
  /** Inside the server process. */
  serverMs: number;
  entriesPerSecond: number;
}

interface MintReport {
  route: string;
  entriesPerRequest: number;
  runs: MintRun[];
  /** Medians over the runs. */
  median: { ms: number; serverMs: number; entriesPerSecond: number };
}

export interface B2bReport {
  send: MintReport & { messagesWritten: number };
  export: MintReport;
  billing: {
    route: string;
    charges: number;
    requests: number;
    server: LatencyStats;
    client: LatencyStats;
    control: { server: LatencyStats };
    /** Each request after a write to one charge's activation: the service reads the 10,000 charges again. */
    afterWrite: { requests: number; server: LatencyStats };
    bodyBytes: number;
    explain: string;
    budget: { limit: string; verdict: 'PASS' | 'FAIL' };
  };
  verdict: 'PASS' | 'FAIL';
}

// ---------------------------------------------------------------------------
// The server (child process)
// ---------------------------------------------------------------------------

type Admin = CompanyAdmin;

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; admins: Record<keyof typeof ADMINS, Admin> }
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> };

/** The development sink (a JSON line per message in a file), and a copy in memory for the admins' OTPs. */
function teeSender(file: string): MessageSender & { messages: { to: string; text: string }[] } {
  const sink = createFileMessageSender(file);
  const memory = createMemoryMessageSender();
  return {
    messages: memory.messages,
    async send(message) {
      await sink.send(message);
      if (message.purpose !== INVITATION) await memory.send(message);
    },
  };
}

async function serveB2b(): Promise<void> {
  const messages = teeSender(process.env.BENCH_MESSAGES_FILE ?? '');
  await serveTimedApp({
    messages,
    timed: ['/b2b/billing', '/b2b/roster/links/', CONTROL],
    fixture: async (baseUrl, pool) => ({
      admins: {
        links: await signedInCompanyAdmin(baseUrl, pool, messages.messages, {
          phone: ADMINS.links,
          crNumber: '9100000001',
          name: 'B2B bench links company',
        }),
        billing: await signedInCompanyAdmin(baseUrl, pool, messages.messages, {
          phone: ADMINS.billing,
          crNumber: '9100000002',
          name: 'B2B bench billing company',
        }),
      },
    }),
  });
}

// ---------------------------------------------------------------------------
// The phase (parent process)
// ---------------------------------------------------------------------------

interface Child {
  proc: ChildProcess;
  port: number;
  admins: Record<keyof typeof ADMINS, Admin>;
}

const ask = asker<FromChild>();

async function startServer(deps: B2bDeps, messagesFile: string): Promise<Child> {
  const { proc, ready } = await forkTimedApp<Ready>(deps, {
    file: __filename,
    flag: '--serve-b2b',
    name: 'b2b server',
    env: { BENCH_MESSAGES_FILE: messagesFile },
  });
  return { proc, port: ready.port, admins: ready.admins };
}

export async function b2bPhase(deps: B2bDeps): Promise<B2bReport> {
  console.log(
    `\nbench: B2B portal: ${ENTRIES}-entry link send and export (${MINT_ROUNDS} each), ` +
      `GET /b2b/billing with ${fmt(CHARGES, 0)} charges (${BILLING_REQUESTS} sequential requests)`,
  );
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-b2b-'));
  deps.onCleanup('b2b messages file', () => rm(dir, { recursive: true, force: true }));
  const messagesFile = path.join(dir, 'messages.jsonl');
  const orm = await openOrm(deps.databaseUrl, 2);
  let db: PoolClient | undefined;
  try {
    db = await (await nativePool(orm)).connect();
    const server = await startServer(deps, messagesFile);
    const [send, exported] = await mintPhase(server, db);
    const messagesWritten = (await readFile(messagesFile, 'utf8'))
      .split('\n')
      .filter((l) => l.includes(`"purpose":"${INVITATION}"`)).length;
    const billing = await billingPhase(server, db);
    const report: B2bReport = {
      send: { ...send, messagesWritten },
      export: exported,
      billing,
      verdict: billing.budget.verdict,
    };
    printReport(report);
    return report;
  } finally {
    db?.release();
    await orm.close();
  }
}

/** The n-th staged person of the links company: a unique phone and e-mail. */
const person = (n: number) => ({
  name: `Invited person ${n}`,
  phone: `+4478${String(n).padStart(8, '0')}`,
  email: `invited.person.${n}@b2b-bench.example`,
  identityType: 'resident',
  nationality: 'Egypt',
});

async function mintPhase(server: Child, db: PoolClient): Promise<[MintReport, MintReport]> {
  const origin = `http://127.0.0.1:${server.port}`;
  const { token, companyId } = server.admins.links;
  const headers = { Authorization: `Bearer ${token}`, 'X-Client-Type': 'mobile', 'Content-Type': 'application/json' };
  const q: Queryable = db;
  const [packageId] = await insertPackages(q, 'Bench links', 1);
  await insertFlexibleContract(q, companyId, ENTRIES * 8_000 * 100); // 100 times what 500 seats at 80 SAR commit
  const post = async (url: string, body: unknown) => {
    const start = performance.now();
    const res = await fetch(`${origin}${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await res.json()) as { data?: Record<string, unknown> };
    const ms = performance.now() - start;
    if (res.status !== 200 || !json.data) throw new Error(`POST ${url} answered ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
    return { ms, data: json.data };
  };
  const staged = await post('/b2b/roster/stage', { rows: Array.from({ length: ENTRIES }, (_, i) => person(i + 1)) });
  if (staged.data.staged !== ENTRIES) throw new Error(`staged ${String(staged.data.staged)} of ${ENTRIES}`);
  const { rows } = await db.query<{ id: string }>('select id from roster_entries where company_id = $1 order by id', [companyId]);
  const body = { rosterIds: rows.map((r) => r.id), packageId };

  const sendOnce = async () => {
    const r = await post('/b2b/roster/links/send', body);
    const failed = r.data.failed as unknown[];
    if (r.data.sent !== ENTRIES || failed.length)
      throw new Error(`send: ${String(r.data.sent)} sent, ${JSON.stringify(failed.slice(0, 3))}`);
    return r.ms;
  };
  const exportOnce = async () => {
    const r = await post('/b2b/roster/links/export', body);
    const entries = r.data.entries as unknown[];
    const skipped = r.data.skipped as unknown[];
    if (entries.length !== ENTRIES || skipped.length)
      throw new Error(`export: ${entries.length} entries, ${JSON.stringify(skipped.slice(0, 3))}`);
    return r.ms;
  };
  await sendOnce(); // warm-up (JIT, caches), not measured
  await exportOnce();
  await ask(server, 'timing', 'timing');
  const runs = { send: [] as MintRun[], export: [] as MintRun[] };
  for (let round = 1; round <= MINT_ROUNDS; round++) {
    for (const kind of ['send', 'export'] as const) {
      const ms = kind === 'send' ? await sendOnce() : await exportOnce();
      const { samples } = await ask(server, 'timing', 'timing');
      const serverMs = samples[`/b2b/roster/links/${kind}`]?.ms[0] ?? NaN;
      runs[kind].push({ round, entries: ENTRIES, ms, serverMs, entriesPerSecond: (ENTRIES / ms) * 1000 });
    }
  }
  const summary = (kind: 'send' | 'export'): MintReport => ({
    route: `POST /b2b/roster/links/${kind}`,
    entriesPerRequest: ENTRIES,
    runs: runs[kind],
    median: {
      ms: median(runs[kind].map((r) => r.ms)),
      serverMs: median(runs[kind].map((r) => r.serverMs)),
      entriesPerSecond: median(runs[kind].map((r) => r.entriesPerSecond)),
    },
  });
  return [summary('send'), summary('export')];
}

interface BillingBody {
  data: { outstandingSar: number; charges: Array<{ date: string; amountSar: number }> };
}

async function billingPhase(server: Child, db: PoolClient): Promise<B2bReport['billing']> {
  const origin = `http://127.0.0.1:${server.port}`;
  const { token, companyId } = server.admins.billing;
  const headers = { Authorization: `Bearer ${token}`, 'X-Client-Type': 'mobile' };
  const q: Queryable = db;
  const packageIds = await insertPackages(q, 'Bench billing', 3);
  await insertFlexibleContract(q, companyId, 100_000_000);
  const t0 = performance.now();
  const { outstandingHalalas } = await seedCharges(q, {
    companyId,
    packageIds,
    charges: CHARGES,
    deadOrders: DEAD_ORDERS,
    consumerOrders: CONSUMER_ORDERS,
  });
  await db.query('vacuum (analyze) users, orders, order_items, activations, payments, company_charges, company_order_lines');
  await db.query('checkpoint');
  console.log(
    `  seeded ${fmt(CHARGES, 0)} charges, ${DEAD_ORDERS} dead company orders and ${fmt(CONSUMER_ORDERS, 0)} consumer orders ` +
      `(+ items, activations, payments) in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );

  const get = async (url: string) => {
    const start = performance.now();
    const res = await fetch(`${origin}${url}`, { headers });
    const text = await res.text();
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status} ${text.slice(0, 300)}`);
    return { ms, text };
  };
  // The answer is what it should be before anything is timed.
  const first = await get('/b2b/billing');
  const answer = (JSON.parse(first.text) as BillingBody).data;
  const halalas = (sar: number) => Math.round(sar * 100);
  const sum = answer.charges.reduce((s, c) => s + halalas(c.amountSar), 0);
  const dates = answer.charges.map((c) => c.date);
  if (answer.charges.length !== CHARGES) throw new Error(`billing answered ${answer.charges.length} charges, not ${CHARGES}`);
  if (sum !== outstandingHalalas || halalas(answer.outstandingSar) !== outstandingHalalas) {
    throw new Error(`billing: Σ charges ${sum}, outstanding ${answer.outstandingSar}, expected ${outstandingHalalas} halalas`);
  }
  if (dates.some((d, i) => i > 0 && d > dates[i - 1])) throw new Error('billing: the charges are not newest first');

  for (let i = 0; i < WARMUP_REQUESTS; i++) {
    await get('/b2b/billing');
    await get(CONTROL);
  }
  await ask(server, 'timing', 'timing'); // drop the warm-up samples
  const client: number[] = [];
  for (let i = 0; i < BILLING_REQUESTS; i++) {
    client.push((await get('/b2b/billing')).ms);
    await get(CONTROL);
  }
  const { samples } = await ask(server, 'timing', 'timing');
  const billing = samples['/b2b/billing'];
  const control = samples[CONTROL];
  if (!billing || billing.ms.length !== BILLING_REQUESTS || billing.non2xx)
    throw new Error('server-side timing of GET /b2b/billing is incomplete');
  const server50 = latencyStats(billing.ms);

  // After a write: each request follows an update of one charge's activation, which raises the company's charges version.
  const { rows: touched } = await db.query<{ id: string }>(
    'select order_id as id from company_charges where company_id = $1 order by created_at desc limit 1',
    [companyId],
  );
  for (let i = 0; i < COLD_REQUESTS; i++) {
    await db.query('update activations set updated_at = updated_at where order_id = $1', [touched[0].id]);
    await get('/b2b/billing');
  }
  const cold = (await ask(server, 'timing', 'timing')).samples['/b2b/billing'];
  if (!cold || cold.ms.length !== COLD_REQUESTS || cold.non2xx)
    throw new Error('server-side timing of GET /b2b/billing after writes is incomplete');

  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  let n = 0;
  const text = BILLING_CHARGES_SQL.replace(/\?/g, () => `$${++n}`);
  const plan = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, [from, to, companyId]);
  return {
    route: 'GET /b2b/billing',
    charges: CHARGES,
    requests: BILLING_REQUESTS,
    server: server50,
    client: latencyStats(client),
    control: { server: latencyStats(control?.ms ?? []) },
    afterWrite: { requests: COLD_REQUESTS, server: latencyStats(cold.ms) },
    bodyBytes: Buffer.byteLength(first.text),
    explain: plan.rows.map((r) => r['QUERY PLAN']).join('\n'),
    budget: { limit: `p50 < ${BILLING_BUDGET_MS} ms`, verdict: server50.p50 < BILLING_BUDGET_MS ? 'PASS' : 'FAIL' },
  };
}

function printReport(r: B2bReport): void {
  console.log(`\nB2B portal (each mint: ${ENTRIES} entries in one request; median of ${MINT_ROUNDS}):`);
  for (const m of [r.send, r.export]) {
    const runs = m.runs.map((x) => fmt(x.entriesPerSecond, 0)).join(', ');
    console.log(
      `  ${m.route.padEnd(32)} ${fmt(m.median.entriesPerSecond, 0)} entries/s (request ${fmt(m.median.ms, 0)} ms, ` +
        `server-side ${fmt(m.median.serverMs, 0)} ms; runs: ${runs} entries/s)`,
    );
  }
  console.log(`  (send delivered ${fmt(r.send.messagesWritten, 0)} invitation messages to the development sink in all its runs)`);
  const b = r.billing;
  console.log(
    `  ${b.route} with ${fmt(b.charges, 0)} charges (${fmt(b.bodyBytes / 1024, 0)} KiB answer), ${b.requests} sequential requests: ` +
      `server-side p50 ${fmt(b.server.p50, 2)} ms, p99 ${fmt(b.server.p99, 2)} ms (client p50 ${fmt(b.client.p50, 2)} ms); ` +
      `control ${CONTROL} server-side p50 ${fmt(b.control.server.p50, 2)} ms`,
  );
  console.log(
    `  the same, each request after a write to one charge (${b.afterWrite.requests} requests; the kept read is stale): ` +
      `server-side p50 ${fmt(b.afterWrite.server.p50, 2)} ms, p99 ${fmt(b.afterWrite.server.p99, 2)} ms`,
  );
  console.log(
    `  ${b.budget.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'}  GET /b2b/billing server-side ${b.budget.limit}: ${fmt(b.server.p50, 2)} ms`,
  );
  console.log('  plan of the charges statement:');
  for (const line of b.explain.split('\n')) console.log(`    ${line}`);
}

if (require.main === module && process.argv[2] === '--serve-b2b') void serveB2b();
