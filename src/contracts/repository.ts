import { query, type Sql } from '../db/sql';
import { ACTIVE_LINK_SQL, type PaymentMode } from '../entities';
import { isUuid } from '../http/fields';
import { sarOf } from '../lib/money';
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

const FIND_BY_ID = query('contracts.find', `select ${COLUMNS} from contracts where id = $1`);
const LOCK_BY_ID = query('contracts.lock', `select ${COLUMNS} from contracts where id = $1 for update`);
const FIND_ACTIVE = query('contracts.find-active', `select ${COLUMNS} from contracts where company_id = $1 and status = 'active'`);
const LOCK_ACTIVE = query(
  'contracts.lock-active',
  `select ${COLUMNS} from contracts where company_id = $1 and status = 'active' for update`,
);

/** The contract by id, or the company's active one; null when there is none (or the id is not a UUID). */
export async function findContract(sql: Sql, key: ContractKey, opts: { lock?: boolean } = {}): Promise<ContractDbRow | null> {
  const [statement, id] =
    'contractId' in key ? [opts.lock ? LOCK_BY_ID : FIND_BY_ID, key.contractId] : [opts.lock ? LOCK_ACTIVE : FIND_ACTIVE, key.companyId];
  if (!isUuid(id)) return null;
  return (await sql.one<ContractDbRow>(statement, [id])) ?? null;
}

/** The contract view every route answers (GET /b2b/contract, the admin routes, confirm-contract), or null. */
export async function readContract(sql: Sql, key: ContractKey, now: Date = new Date()): Promise<ContractBody | null> {
  const row = await findContract(sql, key);
  if (!row) return null;
  const flexible = row.payment_mode === 'flexible';
  const items = flexible ? [] : await contractItems(sql, row.id, now);
  const rosterCount = await countRoster(sql, row.company_id);
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
async function contractItems(sql: Sql, contractId: string, now: Date): Promise<ContractBody['items']> {
  const rows = await sql.rows<ItemDbRow>(
    query(
      'contracts.items',
      `select ci.id, ci.package_id, ci.qty, ci.unit_price_halalas,
              ${CONSUMED_SEATS('ci.id', '$1::timestamptz')} as consumed
         from contract_items ci
        where ci.contract_id = $2
        order by ci.package_id, ci.id`,
    ),
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

/** The company's roster size, from roster_counts (kept by triggers on roster_entries): counting the rows is linear in the roster. */
async function countRoster(sql: Sql, companyId: string): Promise<number> {
  const row = await sql.one<{ n: string }>(
    query('contracts.count-roster', 'select coalesce(sum(c.entries), 0) as n from roster_counts c where c.company_id = $1'),
    [companyId],
  );
  return Number(row!.n);
}

const iso = (value: Date | string) => new Date(value).toISOString();

// --- Confirming a contract (the quote run's confirm, activities/quotes.ts) ---------------------------

/** The contract a quote version was confirmed into, if any (a retried confirm finds its own). */
export async function contractOfQuote(sql: Sql, quoteVersionId: string): Promise<string | undefined> {
  const row = await sql.one<{ id: string }>(query('contracts.of-quote', 'select id from contracts where quote_request_id = $1'), [
    quoteVersionId,
  ]);
  return row?.id;
}

export interface NewContract {
  id: string;
  ref: string;
  companyId: string;
  quoteVersionId: string;
  paymentMode: PaymentMode;
  totalHalalas: number;
  confirmedBy: string;
  now: Date;
}

/** An `active` contract; the partial unique index refuses a second active one per company (contracts_company_active_unique). */
export async function insertContract(sql: Sql, c: NewContract): Promise<void> {
  await sql.exec(
    query(
      'contracts.insert',
      `insert into contracts (id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_by, confirmed_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 'active', $6, $7, $8, $8, $8)`,
    ),
    [c.id, c.ref, c.companyId, c.quoteVersionId, c.paymentMode, c.totalHalalas, c.confirmedBy, c.now],
  );
}

/** A prepaid contract's lines, each at its snapshot price, in one statement. */
export async function insertContractItems(
  sql: Sql,
  contractId: string,
  lines: readonly { id: string; packageId: string; qty: number; unitPriceHalalas: number }[],
): Promise<void> {
  if (lines.length === 0) return;
  await sql.exec(
    query(
      'contracts.insert-items',
      `insert into contract_items (id, contract_id, package_id, qty, unit_price_halalas)
       select t.id, $1, t.package_id, t.qty, t.unit_price
         from unnest($2::uuid[], $3::uuid[], $4::int[], $5::bigint[]) as t(id, package_id, qty, unit_price)`,
    ),
    [contractId, lines.map((l) => l.id), lines.map((l) => l.packageId), lines.map((l) => l.qty), lines.map((l) => l.unitPriceHalalas)],
  );
}

// --- The balance's figures (./balance.ts; the link mint's and the activation's gates use them too) ---

/** The company's picked mode, prepaid if unpicked or the company is unknown. */
export async function pickedMode(sql: Sql, companyId: string): Promise<PaymentMode> {
  const row = await sql.one<{ payment_mode: PaymentMode | null }>(
    query('contracts.picked-mode', 'select payment_mode from companies where id = $1'),
    [companyId],
  );
  return row?.payment_mode ?? 'prepaid';
}

/** A paid order of the company with an activation that is still alive: a live charge. */
export const LIVE_CHARGE = (order: string) =>
  `${order}.status in ('paid', 'completed')
   and exists (select 1 from activations a where a.order_id = ${order}.id and a.status not in ('failed', 'cancelled'))`;

/** Σ order totals of the live charges, in halalas (also the company activation gate). */
export async function drawnHalalas(sql: Sql, companyId: string): Promise<number> {
  const row = await sql.one<{ drawn: string }>(
    query(
      'contracts.drawn',
      `select coalesce(sum(o.total_halalas), 0) as drawn from orders o where o.company_id = $1 and ${LIVE_CHARGE('o')}`,
    ),
    [companyId],
  );
  return Number(row!.drawn);
}

/** One roster person counts once, however many links they hold; the price is the mint-time snapshot. */
export async function committedHalalas(sql: Sql, companyId: string, now: Date): Promise<number> {
  const row = await sql.one<{ committed: string }>(
    query(
      'contracts.committed',
      `select coalesce(sum(r.unit_price_halalas), 0) as committed
         from roster_entries r
        where r.company_id = $1
          and exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${SEAT_CONSUMED('l', '$2::timestamptz')})
          and not exists (select 1 from orders o where o.company_id = r.company_id and o.user_id = r.user_id and ${LIVE_CHARGE('o')})`,
    ),
    [companyId, now],
  );
  return Number(row!.committed);
}

export interface PackageLine {
  packageId: string;
  nameEn: string;
  nameAr: string;
  count: number;
  drawnSar: number;
}

/**
 * Per package, the activated activations of the company's paid orders and Σ their items. An erased
 * person's seat (deletedAt set) still counts: an account's deletion frees nothing the company drew.
 */
export async function activeLines(sql: Sql, companyId: string): Promise<PackageLine[]> {
  const rows = await sql.rows<{ packageId: string; nameEn: string; nameAr: string; count: string; drawn: string }>(
    query(
      'contracts.active-lines',
      `select p.id as "packageId", p.name_en as "nameEn", p.name_ar as "nameAr", count(*) as count,
              sum(oi.unit_price_halalas * oi.quantity) as drawn
         from orders o
         join activations a on a.order_id = o.id and a.status = 'activated'
         join order_items oi on oi.id = a.order_item_id
         join packages p on p.id = a.package_id
        where o.company_id = $1 and o.status in ('paid', 'completed')
        group by p.id, p.name_en, p.name_ar
        order by p.name_en, p.id`,
    ),
    [companyId],
  );
  return rows.map(({ drawn, count, ...line }) => ({ ...line, count: Number(count), drawnSar: sarOf(drawn) }));
}
