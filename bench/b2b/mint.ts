/**
 * The B2B phase's link mints (bench/b2b.ts): POST /b2b/roster/links/send and /export with the same
 * 500 entries, repeated alternately after one unmeasured warm-up of each.
 */
import type { PoolClient } from 'pg';
import { median } from '../lib/stats';
import { insertFlexibleContract, insertPackages } from './fixtures';
import { askB2b, type B2bServer } from './server';

export const ENTRIES = 500;
export const MINT_ROUNDS = 3;

export interface MintRun {
  round: number;
  entries: number;
  /** Client wall time of the one request. */
  ms: number;
  /** Inside the server process. */
  serverMs: number;
  entriesPerSecond: number;
}

export interface MintReport {
  route: string;
  entriesPerRequest: number;
  runs: MintRun[];
  /** Medians over the runs. */
  median: { ms: number; serverMs: number; entriesPerSecond: number };
}

/** The n-th staged person of the links company: a unique phone and e-mail. */
const person = (n: number) => ({
  name: `Invited person ${n}`,
  phone: `+4478${String(n).padStart(8, '0')}`,
  email: `invited.person.${n}@b2b-bench.example`,
  identityType: 'resident',
  nationality: 'Egypt',
});

export async function measureMints(server: B2bServer, db: PoolClient): Promise<[MintReport, MintReport]> {
  const origin = `http://127.0.0.1:${server.port}`;
  const { token, companyId } = server.admins.links;
  const headers = { Authorization: `Bearer ${token}`, 'X-Client-Type': 'mobile', 'Content-Type': 'application/json' };
  const [packageId] = await insertPackages(db, 'Bench links', 1);
  await insertFlexibleContract(db, companyId, ENTRIES * 8_000 * 100); // 100 times what 500 seats at 80 SAR commit
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
  await askB2b(server, 'timing', 'timing');
  const runs = { send: [] as MintRun[], export: [] as MintRun[] };
  for (let round = 1; round <= MINT_ROUNDS; round++) {
    for (const kind of ['send', 'export'] as const) {
      const ms = kind === 'send' ? await sendOnce() : await exportOnce();
      const { samples } = await askB2b(server, 'timing', 'timing');
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
