/**
 * One size of the roster phase (bench/roster.ts): the answers checked, sequential requests timed
 * inside the server process, and EXPLAIN of the statements the API prepared (page and total, plain
 * and search), with the custom and the generic plan.
 */
import type { PoolClient } from 'pg';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { benchConfig } from '../lib/app';
import { explainPrepared, walk } from '../lib/explain';
import { printSequential } from '../lib/report';
import { fmt, latencyStats, type LatencyStats } from '../lib/stats';
import { benchPerson, ROSTER_SMALL_ROWS } from './data';
import { askRoster, type RosterServer } from './server';

const WARMUP_REQUESTS = 200;
const PAGE_LIMIT = 20;
export const DEEP_PAGE = 50;

export const REQUESTS = ['first', 'page50', 'search', 'control'] as const;
export type RosterRequest = (typeof REQUESTS)[number];
export const LABEL: Record<RosterRequest, string> = {
  first: 'first page',
  page50: `page ${DEEP_PAGE}`,
  search: 'exact-contact search',
  control: 'control /auth/session',
};

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

export interface RosterSize {
  rows: number;
  benchCompanyRows: number;
  companies: number;
  sequential: Record<RosterRequest, { url: string; server: LatencyStats; client: LatencyStats }>;
  explain: PlanCheck[];
}

/** `requests` sequential requests per request kind (run.ts: --history-requests). */
export async function measureSize(server: RosterServer, db: PoolClient, requests: number): Promise<RosterSize> {
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
  await askRoster(server, 'timing', 'timing'); // drop the warm-up samples
  const client: Record<RosterRequest, number[]> = { first: [], page50: [], search: [], control: [] };
  for (let i = 0; i < requests; i++) for (const k of REQUESTS) client[k].push((await get(paths[k])).ms);
  const { samples } = await askRoster(server, 'timing', 'timing');
  const sequential = {} as RosterSize['sequential'];
  for (const k of REQUESTS) {
    const s = samples[paths[k]];
    if (!s || s.ms.length !== requests || s.non2xx) throw new Error(`server-side timing of ${paths[k]}: ${s?.ms.length ?? 0} samples`);
    sequential[k] = { url: paths[k], server: latencyStats(s.ms), client: latencyStats(client[k]) };
  }

  const { statements } = await askRoster(server, 'sql', 'sql');
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

/**
 * EXPLAIN of a roster statement (lib/explain.ts), custom and generic plan. Through indexes: no
 * sequential scan of any table, and roster_entries read only by index scans of its own indexes.
 */
async function explainStatement(
  db: PoolClient,
  label: string,
  text: string | undefined,
  values: Array<string | number>,
): Promise<PlanCheck[]> {
  if (!text) throw new Error(`the server did not capture the statement of ${label}`);
  const plans = await explainPrepared(db, `bench_roster_${label.replace(/\W/g, '_')}`, text, values);
  return plans.map((p) => {
    const access: string[] = [];
    let seq = false;
    let rosterOk = true;
    walk(p.top, (node) => {
      if (node['Node Type'] === 'Seq Scan') seq = true;
      if (!node['Relation Name'] && !node['Index Name']) return;
      const on = node['Relation Name'] ? `${node['Relation Name']}: ` : '';
      access.push(`${on}${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
      if (node['Index Name']?.startsWith('roster_entries') === false && node['Relation Name'] === 'roster_entries') rosterOk = false;
    });
    return {
      label: `${label}, ${p.plan} plan`,
      access,
      throughIndexes: !seq && rosterOk && access.some((a) => / using roster_/.test(a)),
      executionMs: p.executionMs,
      sharedHit: p.top['Shared Hit Blocks'] ?? 0,
      sharedRead: p.top['Shared Read Blocks'] ?? 0,
      text: p.text,
    };
  });
}

export function printSize(s: RosterSize): void {
  console.log(`  ${fmt(s.rows, 0)} roster rows in ${fmt(s.companies, 0)} companies (the bench company's: ${fmt(s.benchCompanyRows, 0)}):`);
  for (const k of REQUESTS) printSequential(LABEL[k], s.sequential[k], 28);
  for (const e of s.explain) {
    console.log(
      `    EXPLAIN ${e.label}: ${e.throughIndexes ? 'through indexes' : '*** NOT through indexes ***'}; execution ${fmt(e.executionMs, 3)} ms, ` +
        `buffers hit ${e.sharedHit}, read ${e.sharedRead}; ${e.access.join(', ')}`,
    );
  }
}
