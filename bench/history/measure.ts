/**
 * One size of the history phase (bench/history.ts): the bench user's pages checked, then measured
 * under load and sequentially, timed inside the `app+timing` server, and the API's own statements
 * EXPLAINed.
 */
import type { PoolClient } from 'pg';
import { DEFAULT_PAGE_SIZE } from '../../src/activations/read-service';
import { explainPrepared, walk } from '../lib/explain';
import { load, MOBILE_AUTH, type Scenario } from '../lib/load';
import type { Options } from '../lib/phase';
import { askServer, serverCpu, type Child, type Fixtures } from '../lib/servers';
import { latencyStats, type LatencyStats } from '../lib/stats';
import { counts, type TableCounts } from './seed';

export const HISTORY_PATH = '/activations/history';
export const HISTORY_CONTROL_PATH = '/auth/session';
export const HISTORY_INDEX = 'activations_user_history_index';
const HISTORY_WARMUP_REQUESTS = 200;

/** The first page, the next page (through the first page's cursor), and the control route (no activations read). */
export const HISTORY_PAGES = ['first', 'cursor', 'control'] as const;
export type HistoryPage = (typeof HISTORY_PAGES)[number];

export interface HistoryPhase {
  activations: number;
  counts: TableCounts;
  /** Sequential requests, one connection: server-side and client latency (ms). */
  sequential: Record<HistoryPage, { url: string; server: LatencyStats; client: LatencyStats }>;
  /** First page under autocannon load (context, no budget). */
  load: {
    connections: number;
    durationSeconds: number;
    rps: number;
    p50: number;
    p99: number;
    non2xx: number;
    errors: number;
    serverSide: LatencyStats;
    cpuPerRequest: { server: number; postgres: number | null };
  };
  explain: PlanCheck[];
}

interface HistoryPageBody {
  items: Array<{ activationId: string; createdAt: string }>;
  nextCursor: string | null;
  hasMore: boolean;
}

export async function measureSize(
  server: Child,
  fx: Fixtures,
  activations: number,
  opts: Options,
  postgresCpu: () => number | null,
  db: PoolClient,
): Promise<HistoryPhase> {
  const origin = `http://127.0.0.1:${server.port}`;
  const headers = MOBILE_AUTH(fx);
  const getPage = async (pathAndQuery: string): Promise<HistoryPageBody> => {
    const res = await fetch(`${origin}${pathAndQuery}`, { headers });
    const body = (await res.json()) as HistoryPageBody;
    if (res.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  // The pages must be full, and the second must continue the first.
  const first = await getPage(HISTORY_PATH);
  if (first.items.length !== DEFAULT_PAGE_SIZE || !first.hasMore || !first.nextCursor) {
    throw new Error(`the bench user's first history page is not full: ${first.items.length} items, hasMore ${first.hasMore}`);
  }
  const paths: Record<HistoryPage, string> = {
    first: HISTORY_PATH,
    cursor: `${HISTORY_PATH}?cursor=${encodeURIComponent(first.nextCursor)}`,
    control: HISTORY_CONTROL_PATH,
  };
  const second = await getPage(paths.cursor);
  const seen = new Set(first.items.map((i) => i.activationId));
  if (
    second.items.length !== DEFAULT_PAGE_SIZE ||
    second.items.some((i) => seen.has(i.activationId)) ||
    second.items[0].createdAt > first.items[first.items.length - 1].createdAt
  ) {
    throw new Error('the second history page does not continue the first');
  }

  const timed = async (pathAndQuery: string): Promise<number> => {
    const start = performance.now();
    const res = await fetch(`${origin}${pathAndQuery}`, { headers });
    await res.arrayBuffer();
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${res.status}`);
    return ms;
  };
  for (let i = 0; i < HISTORY_WARMUP_REQUESTS; i++) {
    await timed(paths.first);
    await timed(paths.cursor);
  }
  const { statements } = await askServer(server, 'sql', 'sql');
  if (!statements.first || !statements.cursor) throw new Error('the server did not capture the history statements');

  // The first page under load: throughput and CPU per request, for context. It
  // comes before the sequential measurement so that both phases measure a server
  // whose code is equally warm (JIT), not one fresh and one after the load.
  const scenario: Scenario = { name: 'history', server: 'app+timing', path: HISTORY_PATH, headers: MOBILE_AUTH };
  const url = `${origin}${HISTORY_PATH}`;
  await load(url, scenario, fx, opts.connections, opts.warmupSeconds);
  await askServer(server, 'timing', 'timing');
  const before = { server: await serverCpu(server), postgres: postgresCpu() };
  const r = await load(url, scenario, fx, opts.connections, opts.durationSeconds);
  const serverMicros = (await serverCpu(server)) - before.server;
  const pgAfter = postgresCpu();
  const underLoad = (await askServer(server, 'timing', 'timing')).samples[HISTORY_PATH];
  const perRequest = (micros: number) => (r.requests.total ? micros / r.requests.total : 0);

  // Sequential requests, one connection: first page, next page and the control
  // route in turn, so that any drift of the machine hits all three alike.
  for (let i = 0; i < HISTORY_WARMUP_REQUESTS; i++) await timed(paths.control);
  await askServer(server, 'timing', 'timing'); // drop the warm-up samples
  const client: Record<HistoryPage, number[]> = { first: [], cursor: [], control: [] };
  for (let i = 0; i < opts.historyRequests; i++) {
    for (const pageKind of HISTORY_PAGES) client[pageKind].push(await timed(paths[pageKind]));
  }
  const { samples } = await askServer(server, 'timing', 'timing');
  const sequential = {} as HistoryPhase['sequential'];
  for (const pageKind of HISTORY_PAGES) {
    const s = samples[paths[pageKind]];
    if (!s || s.ms.length !== opts.historyRequests || s.non2xx) {
      throw new Error(`server-side timing of ${paths[pageKind]}: ${s?.ms.length ?? 0} samples, ${s?.non2xx ?? 0} non-2xx`);
    }
    sequential[pageKind] = { url: paths[pageKind], server: latencyStats(s.ms), client: latencyStats(client[pageKind]) };
  }

  const [createdAt, id] = first.nextCursor.split('|') as [string, string];
  const limit = DEFAULT_PAGE_SIZE + 1; // the service asks for one row more to know whether there is a next page
  const explain = [
    ...(await explainHistory(db, 'first page', statements.first, [fx.userId, limit])),
    ...(await explainHistory(db, 'next page', statements.cursor, [fx.userId, createdAt, id, limit])),
  ];
  return {
    activations,
    counts: await counts(db, fx.userId),
    sequential,
    load: {
      connections: opts.connections,
      durationSeconds: opts.durationSeconds,
      rps: r.requests.total / r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors,
      serverSide: latencyStats(underLoad?.ms ?? []),
      cpuPerRequest: {
        server: perRequest(serverMicros),
        postgres: pgAfter === null || before.postgres === null ? null : perRequest(pgAfter - before.postgres),
      },
    },
    explain,
  };
}

export interface PlanCheck {
  /** Which statement and which plan of the prepared statement. */
  label: string;
  /** How the activations table is read, e.g. `Index Scan using activations_user_history_index`. */
  activationsAccess: string[];
  usesHistoryIndex: boolean;
  executionMs: number;
  planningMs: number;
  sharedHit: number;
  sharedRead: number;
  rows: number;
  /** The same EXPLAIN in text form (run once more). */
  text: string;
}

/**
 * EXPLAIN of a history statement (lib/explain.ts), custom and generic plan. The
 * history index is "used" when every access to `activations` is an index scan of
 * it: no sequential scan, no bitmap scan followed by a sort.
 */
async function explainHistory(db: PoolClient, label: string, statementText: string, values: Array<string | number>): Promise<PlanCheck[]> {
  const plans = await explainPrepared(db, `bench_explain_${label.replace(/\W/g, '_')}`, statementText, values);
  return plans.map((p) => {
    const access: string[] = [];
    walk(p.top, (n) => {
      if (n['Relation Name'] === 'activations' || n['Index Name']?.startsWith('activations_')) {
        access.push(
          `${n['Node Type']}${n['Scan Direction'] === 'Backward' ? ' Backward' : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`,
        );
      }
    });
    return {
      label: `${label}, ${p.plan} plan`,
      activationsAccess: access,
      usesHistoryIndex: access.length > 0 && access.every((a) => /^Index (Only )?Scan/.test(a) && a.endsWith(`using ${HISTORY_INDEX}`)),
      executionMs: p.executionMs,
      planningMs: p.planningMs,
      sharedHit: p.top['Shared Hit Blocks'] ?? 0,
      sharedRead: p.top['Shared Read Blocks'] ?? 0,
      rows: p.top['Actual Rows']!,
      text: p.text,
    };
  });
}
