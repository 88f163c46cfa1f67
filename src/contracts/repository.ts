import type { EntityManager } from '@mikro-orm/postgresql';
import { query, type Sql } from '../db/sql';
import { sqlOf } from '../db/transition';
import { ACTIVE_LINK_SQL, type PaymentMode } from '../entities';
import { isUuid } from '../http/fields';
import { sarOf } from '../lib/halalas';
import type { ContractBody } from './schemas';

/**
 * The contracts tables as the contract routes read them: the contract with its lines, the seats
 * links hold on each line, and the roster figures. Money stays in halalas until the view.
 */

export interface ContractDbRow {
  id: string;
  ref: string;
  company_id: string;
  quote_request_id: string;
  payment_mode: PaymentMode;
  status: 'active';
  total_halalas: string | number;
  confirmed_by: string | null;
  confirmed_at: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
}

interface ItemDbRow {
  id: string;
  package_id: string;
  qty: number;
  unit_price_halalas: string | number;
  consumed: string | number;
}

const COLUMNS =
  'id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_by, confirmed_at, created_at, updated_at';

/**
 * A seat of a contract line is consumed by a link that is `used` (for good, even past its expiry) or
 * still active and not past its expiry. `now` is the app's clock (lazy expiry agrees with the roster).
 * The links issue writes invitation_links.contract_item_id; until then this counts 0.
 */
export const SEAT_CONSUMED = (link: string, now: string) =>
  `(${link}.status = 'used' or (${link}.status in (${ACTIVE_LINK_SQL}) and ${link}.expires_at > ${now}))`;

/**
 * Seats consumed on the contract line `item` (an SQL expression of its id): the people holding one,
 * not link rows, so a person re-minted after an abandoned activation (a `used` row and a live one)
 * holds one seat. The contract view and the link mint count the same way.
 */
export const CONSUMED_SEATS = (item: string, now: string) =>
  `(select count(distinct l.user_id) from invitation_links l where l.contract_item_id = ${item} and ${SEAT_CONSUMED('l', now)})`;

export type ContractKey = { contractId: string } | { companyId: string };

const FIND_CONTRACT = {
  byId: {
    read: query('contracts.find-by-id', `select ${COLUMNS} from contracts where id = $1`),
    lock: query('contracts.lock-by-id', `select ${COLUMNS} from contracts where id = $1 for update`),
  },
  active: {
    read: query('contracts.find-active', `select ${COLUMNS} from contracts where company_id = $1 and status = 'active'`),
    lock: query('contracts.lock-active', `select ${COLUMNS} from contracts where company_id = $1 and status = 'active' for update`),
  },
};

/** The contract by id, or the company's active one; null when there is none (or the id is not a UUID). */
export async function findContract(sql: Sql, key: ContractKey, opts: { lock?: boolean } = {}): Promise<ContractDbRow | null> {
  const [statements, id] = 'contractId' in key ? [FIND_CONTRACT.byId, key.contractId] : [FIND_CONTRACT.active, key.companyId];
  if (!isUuid(id)) return null;
  return (await sql.one<ContractDbRow>(opts.lock ? statements.lock : statements.read, [id])) ?? null;
}

/** The contract view every route answers (GET /b2b/contract, the admin routes, confirm-contract), or null. */
export async function readContract(em: EntityManager, key: ContractKey, now: Date = new Date()): Promise<ContractBody | null> {
  const row = await findContract(sqlOf(em), key);
  if (!row) return null;
  const flexible = row.payment_mode === 'flexible';
  const items = flexible ? [] : await contractItems(em, row.id, now);
  const rosterCount = await countRoster(em, row.company_id);
  const totalQty = items.reduce((sum, item) => sum + item.qty, 0);
  return {
    id: row.id,
    ref: row.ref,
    companyId: row.company_id,
    quoteRequestId: row.quote_request_id,
    paymentMode: row.payment_mode,
    status: row.status,
    totalSar: sarOf(row.total_halalas),
    confirmedBy: row.confirmed_by,
    confirmedAt: iso(row.confirmed_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    items,
    totalQty,
    rosterCount,
    driftExcess: flexible ? 0 : Math.max(0, rosterCount - totalQty),
  };
}

/** The lines of a prepaid contract with the seats links hold on each (one query, by package then id for a stable order). */
async function contractItems(em: EntityManager, contractId: string, now: Date): Promise<ContractBody['items']> {
  const rows = await em.execute<ItemDbRow[]>(
    `select ci.id, ci.package_id, ci.qty, ci.unit_price_halalas,
            ${CONSUMED_SEATS('ci.id', '?::timestamptz')} as consumed
       from contract_items ci
      where ci.contract_id = ?
      order by ci.package_id, ci.id`,
    [now, contractId],
  );
  return rows.map((r) => {
    const consumedQty = Number(r.consumed);
    return {
      id: r.id,
      packageId: r.package_id,
      qty: r.qty,
      unitPriceSar: sarOf(r.unit_price_halalas),
      consumedQty,
      remainingQty: Math.max(0, r.qty - consumedQty),
    };
  });
}

async function countRoster(em: EntityManager, companyId: string): Promise<number> {
  const [row] = await em.execute<{ n: string | number }[]>('select count(*) as n from roster_entries where company_id = ?', [companyId]);
  return Number(row.n);
}

const iso = (value: Date | string) => new Date(value).toISOString();

const PICKED_MODE = query('contracts.picked-mode', 'select payment_mode as mode from companies where id = $1');

/** The company's picked mode, prepaid if unpicked or the company is unknown. */
export async function pickedMode(sql: Sql, companyId: string): Promise<PaymentMode> {
  return (await sql.one<{ mode: PaymentMode | null }>(PICKED_MODE, [companyId]))?.mode ?? 'prepaid';
}

/** A paid order of the company with an activation that is still alive: a live charge. */
export const LIVE_CHARGE = (order: string) =>
  `${order}.status in ('paid', 'completed')
   and exists (select 1 from activations a where a.order_id = ${order}.id and a.status not in ('failed', 'cancelled'))`;

const DRAWN = query(
  'contracts.drawn',
  `select (coalesce(sum(o.total_amount_sar), 0) * 100)::bigint as drawn from orders o where o.company_id = $1 and ${LIVE_CHARGE('o')}`,
);

/** Σ order totals of the live charges: numeric SAR summed exactly, then whole halalas (also the company activation gate). */
export async function drawnHalalas(sql: Sql, companyId: string): Promise<number> {
  const row = await sql.one<{ drawn: string }>(DRAWN, [companyId]);
  return Number(row?.drawn ?? 0);
}

const COMMITTED = query(
  'contracts.committed',
  `select (coalesce(sum(r.unit_price_sar), 0) * 100)::bigint as committed
     from roster_entries r
    where r.company_id = $1
      and exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${SEAT_CONSUMED('l', '$2::timestamptz')})
      and not exists (select 1 from orders o where o.company_id = r.company_id and o.user_id = r.user_id and ${LIVE_CHARGE('o')})`,
);

/** One roster person counts once, however many links they hold; the price is the mint-time snapshot. */
export async function committedHalalas(sql: Sql, companyId: string, now: Date): Promise<number> {
  const row = await sql.one<{ committed: string }>(COMMITTED, [companyId, now]);
  return Number(row?.committed ?? 0);
}
