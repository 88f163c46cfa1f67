/**
 * GET /admin/links at scale (a phase of `npm run bench`, `--only admin-links` / `--no-admin-links`):
 * 300,000 invitation links, one per person, of 300,000 people in 200 companies, written by SQL; a
 * super_admin signs up and in over HTTP. For each query below, server-side p50 and p99 over
 * sequential requests on one keep-alive connection, timed inside the server process (as the other
 * phases do), with GET /auth/session as the control. The spec sets no budget: the figures are
 * reported, with the number of links each search matches (the answer's total).
 *
 * The searches span what src/admin-links/reads.ts tells apart: one person's full name, a surname and
 * number prefix (about 1,400 people), a company-name word (25 companies, 37,500 links), a common first
 * name (30,000 people: past the 2,000 matches a search names by id, so names are tested along the
 * newest-first scan), a name 50,000 consumers without a link share (the scan reaches the end), and a
 * word nobody has.
 */
import type { ChildProcess } from 'node:child_process';
import { openPool } from '../src/db/database';
import { createMemoryMessageSender } from '../src/providers/messages';
import type { Phase } from './lib/phase';
import { asker } from './lib/processes';
import { signedInUser } from './lib/sign-up';
import { fmt, latencyStats, type LatencyStats } from './lib/stats';
import { forkTimedApp, serveTimedApp, type TimedAppDeps } from './lib/timed-app';
import type { TimingSamples } from './lib/timing';

const LINKS = 300_000;
/** Consumers named Yasmin with no invitation link: many matching names, no matching link. */
const UNLINKED = 50_000;
const COMPANIES = 200;
const REQUESTS = 50;
const WARMUP_REQUESTS = 5;
const ADMIN_PHONE = '+966512340021';
const CONTROL = '/auth/session';
const FIRST = ['Sara', 'Mohammed', 'Fatimah', 'Abdullah', 'Noura', 'Khalid', 'Reem', 'Omar', 'Layla', 'Faisal'];
const LAST = ['Alharbi', 'Alqahtani', 'Alotaibi', 'Alghamdi', 'Alzahrani', 'Alshehri', 'Aldosari', 'Almutairi'];
const CITIES = ['Acme', 'Najd', 'Riyadh', 'Gulf', 'Desert', 'Falcon', 'Oasis', 'Red Sea'];
/** The n-th person's name, as the seed writes it. */
const personName = (n: number) => `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / 10) % LAST.length]} ${n}`;

const QUERIES: Array<{ label: string; search?: string }> = [
  { label: 'no search (newest first)' },
  { label: 'one person', search: personName(123_457) },
  { label: 'a surname and number prefix', search: `${LAST[2]} 12` },
  { label: 'a company-name word', search: CITIES[5] },
  { label: 'a common first name', search: FIRST[0] },
  { label: 'a common name of people without links', search: 'Yasmin' },
  { label: 'nobody', search: 'Zzqx' },
];

export type AdminLinksDeps = TimedAppDeps;

/** Its own timed server and 300,000 links; no budget, so no verdict. */
export const adminLinksPhase: Phase<AdminLinksReport> = {
  name: 'admin-links',
  plan: () => 'GET /admin/links at 300,000 links',
  run: (ctx) => benchAdminLinks(ctx),
};

export interface AdminLinksReport {
  route: string;
  links: number;
  requests: number;
  queries: Array<{ label: string; search: string | null; matched: number; server: LatencyStats }>;
  control: { server: LatencyStats };
}

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; token: string }
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> };

async function serveAdminLinks(): Promise<void> {
  const messages = createMemoryMessageSender();
  await serveTimedApp({
    messages,
    timed: ['/admin/links', CONTROL],
    fixture: async (baseUrl, pool) => {
      const admin = await signedInUser(baseUrl, messages.messages, { phone: ADMIN_PHONE, name: 'Links bench staff' }, async (id) => {
        await pool.query(`update users set app_role = 'super_admin' where id = $1`, [id]);
      });
      return { token: admin.token };
    },
  });
}

const ask = asker<FromChild>();

async function startServer(deps: AdminLinksDeps): Promise<{ proc: ChildProcess; port: number; token: string }> {
  // No kept answers: the phase times the list itself (a kept one would answer every repeat).
  const { proc, ready } = await forkTimedApp<Ready>(deps, {
    file: __filename,
    flag: '--serve-admin-links',
    name: 'admin links server',
    env: { PORTAL_CACHE_MS: '0' },
  });
  return { proc, port: ready.port, token: ready.token };
}

/** Companies, people and one live emailed link each, newest one a minute apart; deterministic ids. */
async function seed(databaseUrl: string): Promise<void> {
  const pool = openPool(databaseUrl, 2);
  try {
    const companyId = (n: string) => `md5('admin-links-bench-company-' || ${n})::uuid`;
    await pool.query(
      `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash,
                              contact_phone_encrypted, contact_phone_hash, status, created_at, updated_at)
       select ${companyId('g')}, 'ALB' || g, ($1::text[])[1 + g % 8] || ' Trading ' || g, 'Bench', 'v1.a.b.c', md5('e' || g),
              'v1.d.e.f', md5('p' || g), 'approved', now(), now()
         from generate_series(1, $2::int) g`,
      [CITIES, COMPANIES],
    );
    await pool.query(
      `insert into users (id, name, created_at, updated_at)
       select md5('admin-links-bench-person-' || g)::uuid,
              ($1::text[])[1 + g % 10] || ' ' || ($2::text[])[1 + (g / 10) % 8] || ' ' || g, now(), now()
         from generate_series(1, $3::int) g`,
      [FIRST, LAST, LINKS],
    );
    await pool.query(
      `insert into users (id, name, created_at, updated_at)
       select md5('admin-links-bench-consumer-' || g)::uuid, 'Yasmin Consumer ' || g, now(), now() from generate_series(1, $1::int) g`,
      [UNLINKED],
    );
    await pool.query(
      `insert into invitation_links (token_hash, user_id, company_id, status, channel, expires_at, created_at, updated_at)
       select md5('admin-links-bench-link-' || g), md5('admin-links-bench-person-' || g)::uuid, ${companyId(`(1 + g % $2::int)`)},
              'sent', 'email', now() + interval '7 days', now() - (g * interval '1 minute'), now()
         from generate_series(1, $1::int) g`,
      [LINKS, COMPANIES],
    );
    await pool.query('analyze users; analyze companies; analyze invitation_links');
  } finally {
    await pool.end();
  }
}

async function benchAdminLinks(deps: AdminLinksDeps): Promise<AdminLinksReport> {
  console.log(`\nbench: GET /admin/links with ${fmt(LINKS, 0)} links (${REQUESTS} sequential requests per query)`);
  const seeded = performance.now();
  await seed(deps.databaseUrl);
  console.log(`bench: admin links seeded in ${fmt((performance.now() - seeded) / 1000, 1)} s`);
  const server = await startServer(deps);
  const headers = { Authorization: `Bearer ${server.token}`, 'X-Client-Type': 'mobile' };
  const get = async (url: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers });
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status} ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as { data?: { total?: number } };
  };
  const timed = async (url: string) => {
    for (let i = 0; i < WARMUP_REQUESTS; i++) await get(url);
    await ask(server, 'timing', 'timing');
    let answer: Awaited<ReturnType<typeof get>> = {};
    for (let i = 0; i < REQUESTS; i++) answer = await get(url);
    const samples = (await ask(server, 'timing', 'timing')).samples[url];
    if (samples?.ms.length !== REQUESTS || samples.non2xx) throw new Error(`server-side timing of ${url} is incomplete`);
    return { server: latencyStats(samples.ms), total: answer.data?.total ?? NaN };
  };
  const queries: AdminLinksReport['queries'] = [];
  for (const q of QUERIES) {
    const url = `/admin/links${q.search ? `?search=${encodeURIComponent(q.search)}` : ''}`;
    const { server: stats, total } = await timed(url);
    queries.push({ label: q.label, search: q.search ?? null, matched: total, server: stats });
  }
  const control = await timed(CONTROL);
  const report: AdminLinksReport = {
    route: 'GET /admin/links',
    links: LINKS,
    requests: REQUESTS,
    queries,
    control: { server: control.server },
  };
  printReport(report);
  return report;
}

function printReport(r: AdminLinksReport): void {
  console.log(`  ${r.route} with ${fmt(r.links, 0)} links, ${r.requests} sequential requests per query (server-side):`);
  for (const q of r.queries) {
    const what = q.search ? `${q.label} ("${q.search}")` : q.label;
    console.log(
      `    ${what.padEnd(52)} ${fmt(q.matched, 0).padStart(7)} links  p50 ${fmt(q.server.p50, 2).padStart(7)} ms  p99 ${fmt(q.server.p99, 2).padStart(7)} ms`,
    );
  }
  console.log(`    control ${CONTROL} p50 ${fmt(r.control.server.p50, 2)} ms`);
}

if (require.main === module && process.argv[2] === '--serve-admin-links') void serveAdminLinks();
