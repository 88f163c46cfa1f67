// Link pipeline fixtures: a ready company (approved, paid contract, staged roster) written with SQL
// and the stage route, activations by SQL, and the portal's link routes.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { PaymentMode } from '../../src/entities';
import { bearer, type TestApp } from './app';
import { insertPackage } from './catalog';
import { insertContract, insertContractPayment } from './contracts';
import { person, rosterCaller, stage } from './roster';

export interface ReadyCompany {
  companyId: string;
  token: string;
  userId: string;
  /** Roster entry ids, ascending (the order answers are sorted in). */
  rosterIds: string[];
  contractId: string;
  itemIds: string[];
  packageIds: string[];
}

export interface ReadyOptions {
  mode?: PaymentMode;
  people?: number;
  /** Prepaid lines (qty, price in halalas); default one line of 10 seats at 80 SAR. */
  lines?: { qty: number; unitPriceHalalas: number }[];
  /** Flexible: the funding (default 100000 = 1000 SAR); paid in full unless `paid` is false. */
  fundingHalalas?: number;
  paid?: boolean;
  /** Contacts per person: both (default), e-mail only or phone only. */
  contacts?: 'both' | 'email' | 'phone';
}

/** An approved company with an admin, people staged through the route, and an active contract paid in full. */
export async function readyCompany(t: TestApp, opts: ReadyOptions = {}): Promise<ReadyCompany> {
  const mode = opts.mode ?? 'prepaid';
  const caller = await rosterCaller(t);
  await t.db.query('update companies set payment_mode = $2 where id = $1', [caller.companyId, mode]);
  const rows = Array.from({ length: opts.people ?? 3 }, () => {
    const p = person();
    if (opts.contacts === 'email') return { ...p, phone: undefined };
    if (opts.contacts === 'phone') return { ...p, email: undefined };
    return p;
  });
  const staged = await stage(t, caller.token, rows);
  if (staged.status !== 200 || staged.body.data.staged !== rows.length) throw new Error(`staging failed: ${JSON.stringify(staged.body)}`);
  const rosterIds = (
    await t.db.query<{ id: string }>('select id from roster_entries where company_id = $1 order by id', [caller.companyId])
  ).map((r) => r.id);
  const lines = opts.lines ?? [{ qty: 10, unitPriceHalalas: 8_000 }];
  const packageIds: string[] = [];
  for (let i = 0; i < (mode === 'prepaid' ? lines.length : 1); i++) packageIds.push(await insertPackage(t.db, { priceSarB2b: '80.00' }));
  const contract = await insertContract(t.db, {
    companyId: caller.companyId,
    mode,
    items: lines.map((l, i) => ({ packageId: packageIds[i], ...l })),
    totalHalalas: mode === 'flexible' ? (opts.fundingHalalas ?? 100_000) : undefined,
  });
  if (opts.paid !== false) await insertContractPayment(t.db, contract.contractId, contract.totalHalalas);
  return { ...caller, rosterIds, contractId: contract.contractId, itemIds: contract.itemIds, packageIds };
}

export const post = (t: TestApp, token: string, path: string, body?: object, lang?: string) => {
  const req = request(t.app).post(path).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return body === undefined ? req : req.send(body);
};

/** An activation of the person in `status` (with its order), as the activation routes would leave it. */
export async function insertActivation(
  t: TestApp,
  f: { userId: string; packageId: string; status: string; companyId?: string },
): Promise<void> {
  const orderId = randomUUID();
  const itemId = randomUUID();
  await t.db.query(
    `insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
     values ($1, $2, $3, 'paid', 8000, 'SAR', now(), now())`,
    [orderId, f.userId, f.companyId ?? null],
  );
  const iccid = `8996600${randomUUID().replace(/\D/g, '').padEnd(12, '0').slice(0, 12)}`;
  await t.db.query(
    `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas) values ($1, $2, $3, $4, 1, 8000)`,
    [itemId, orderId, f.packageId, iccid],
  );
  await t.db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3, (select operator_id from packages where id = $4), $4, $5, $6, now(), now())`,
    [orderId, itemId, f.userId, f.packageId, `iccid-${itemId}`, f.status],
  );
}

export interface LinkRow {
  id: string;
  roster_entry_id: string;
  user_id: string;
  status: string;
  channel: string | null;
  token_hash: string;
  contract_item_id: string | null;
  package_id: string | null;
  created_by: string | null;
  expires_at: Date;
}

export const linksOf = (t: TestApp, rosterId: string) =>
  t.db.query<LinkRow>('select * from invitation_links where roster_entry_id = $1 order by created_at, id', [rosterId]);

export const rosterRow = async (t: TestApp, rosterId: string) =>
  (
    await t.db.query<{ package_id: string | null; contract_item_id: string | null; unit_price_halalas: string | null; user_id: string }>(
      'select package_id, contract_item_id, unit_price_halalas, user_id from roster_entries where id = $1',
      [rosterId],
    )
  )[0];

export const auditRows = (t: TestApp, companyId: string, action: string) =>
  t.db.query<{ details: Record<string, unknown> }>('select details from audit_events where company_id = $1 and action = $2', [
    companyId,
    action,
  ]);
