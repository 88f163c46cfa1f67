/**
 * GET /b2b/billing for a company with 10,000 charges (bench/b2b.ts has the details): the answer
 * checked, then server-side p50 and p99 over sequential requests (the warm path), the same after a
 * write to one charge (the cold path), and EXPLAIN of the charges statement.
 */
import type { PoolClient } from 'pg';
import { BILLING_CHARGES_SQL } from '../../src/billing/repository';
import { fmt, latencyStats, type LatencyStats } from '../lib/stats';
import { insertFlexibleContract, insertPackages, seedCharges } from './fixtures';
import { askB2b, CONTROL, type B2bServer } from './server';

export const CHARGES = 10_000;
const DEAD_ORDERS = 500;
const CONSUMER_ORDERS = 20_000;
export const BILLING_REQUESTS = 300;
/** Requests each preceded by a write to one of the company's charges (its kept read is stale). */
const COLD_REQUESTS = 50;
const WARMUP_REQUESTS = 30;
const BILLING_BUDGET_MS = 20;

export interface BillingReport {
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
}

interface BillingBody {
  data: { outstandingSar: number; charges: Array<{ date: string; amountSar: number }> };
}

export async function measureBilling(server: B2bServer, db: PoolClient): Promise<BillingReport> {
  const origin = `http://127.0.0.1:${server.port}`;
  const { token, companyId } = server.admins.billing;
  const headers = { Authorization: `Bearer ${token}`, 'X-Client-Type': 'mobile' };
  const packageIds = await insertPackages(db, 'Bench billing', 3);
  await insertFlexibleContract(db, companyId, 100_000_000);
  const t0 = performance.now();
  const { outstandingHalalas } = await seedCharges(db, {
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
  await askB2b(server, 'timing', 'timing'); // drop the warm-up samples
  const client: number[] = [];
  for (let i = 0; i < BILLING_REQUESTS; i++) {
    client.push((await get('/b2b/billing')).ms);
    await get(CONTROL);
  }
  const { samples } = await askB2b(server, 'timing', 'timing');
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
  const cold = (await askB2b(server, 'timing', 'timing')).samples['/b2b/billing'];
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
