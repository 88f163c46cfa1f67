import { query, type Sql } from '../db/sql';
import { ACTIVE_LINK_SQL } from '../entities';
import type { ActivityKind } from './schemas';

/** The billing and dashboard reads; money stays in halalas until the view. */

/** A charge entry of the billing answer, as company_charges renders it. */
export interface ChargeEntry {
  date: string;
  personName: string;
  packageName: string;
  amountSar: number;
  paymentId: string | null;
}

export interface BillingCharges {
  /** The company's charges, newest first: a JSON array of ChargeEntry, as the database joined it (never parsed here). */
  chargesJson: string;
  /** Σ charges, and Σ of those dated in [monthFrom, monthTo), in whole halalas. */
  outstanding: number;
  accrued: number;
}

/** The statement of billingCharges; parameters: month start, next month start, company id (exported for the bench's EXPLAIN). */
export const BILLING_CHARGES_SQL = `select coalesce('[' || string_agg(c.charge_json, ',' order by c.created_at desc, c.order_id desc) || ']', '[]') as charges,
            coalesce(sum(c.amount_halalas), 0) as outstanding,
            coalesce(sum(c.amount_halalas) filter (where c.created_at >= $1 and c.created_at < $2), 0) as accrued
       from company_charges c
      where c.company_id = $3`;
const BILLING_CHARGES = query('billing.charges', BILLING_CHARGES_SQL);

/**
 * The company's live charges (a paid company order whose activation is alive: the balance's
 * LIVE_CHARGE rule) newest first, and their sums. The triggers of migration CompanyCharges keep one
 * row per charge in company_charges with its answer entry already rendered as JSON (the date in ISO
 * 8601 UTC with milliseconds, the amount as the order's 2-decimal total), so this is one read of one
 * table: the entries are joined as text and sent as they are (src/billing/service.ts), with no row
 * mapping, parsing or serializing per charge. The sums add the same rows' halalas, so Σ entries is
 * exactly `outstanding`.
 */
export async function billingCharges(sql: Sql, companyId: string, monthFrom: Date, monthTo: Date): Promise<BillingCharges> {
  // An aggregate without group by: always one row.
  const row = (await sql.one<{ charges: string; outstanding: string; accrued: string }>(BILLING_CHARGES, [monthFrom, monthTo, companyId]))!;
  return { chargesJson: row.charges, outstanding: Number(row.outstanding), accrued: Number(row.accrued) };
}

const CHARGES_VERSION = query(
  'billing.charges-version',
  'select version::text as version from company_charge_versions where company_id = $1',
);

/** The company's charges version (company_charge_versions; "0" before its first charge was written). */
export async function chargesVersion(sql: Sql, companyId: string): Promise<string> {
  return (await sql.one<{ version: string }>(CHARGES_VERSION, [companyId]))?.version ?? '0';
}

export interface ChargeRow {
  entry: ChargeEntry;
  halalas: number;
}

const CHARGE_ROWS = query(
  'billing.charge-rows',
  `select c.charge_json as "chargeJson", c.amount_halalas as halalas
     from company_charges c
    where c.company_id = $1
    order by c.created_at desc, c.order_id desc`,
);

/** The same charges as rows, for charges.csv: each entry and its amount in whole halalas. */
export async function chargeRows(sql: Sql, companyId: string): Promise<ChargeRow[]> {
  const rows = await sql.rows<{ chargeJson: string; halalas: string }>(CHARGE_ROWS, [companyId]);
  return rows.map((r) => ({ entry: JSON.parse(r.chargeJson) as ChargeEntry, halalas: Number(r.halalas) }));
}

export interface ActiveLineRow {
  packageId: string;
  nameEn: string;
  nameAr: string;
  count: number;
  /** Σ halalas (numeric: text). */
  drawn: string;
}

const ACTIVE_LINE_ROWS = query(
  'billing.active-lines',
  `select p.id as "packageId", p.name_en as "nameEn", p.name_ar as "nameAr", sum(l.activations)::int as count, sum(l.halalas) as drawn
     from company_order_lines l
     join packages p on p.id = l.package_id
    where l.company_id = $1
    group by p.id, p.name_en, p.name_ar
    order by p.name_en, p.id`,
);

/**
 * Flexible activeLines: per package, the activated activations (an erased person's too) of the company's paid
 * orders and Σ their items in halalas (the balance's activeLines rule), from company_order_lines,
 * which the same triggers keep per order and package.
 */
export async function activeLineRows(sql: Sql, companyId: string): Promise<ActiveLineRow[]> {
  return sql.rows<ActiveLineRow>(ACTIVE_LINE_ROWS, [companyId]);
}

export interface DashboardCounts {
  launched: boolean;
  minted30d: number;
  activated: number;
  pending: number;
  failed: number;
}

const DASHBOARD_COUNTS = query(
  'billing.dashboard-counts',
  `select exists (select 1 from invitation_links l where l.company_id = $1) as launched,
          (select count(*)::int from invitation_links l where l.company_id = $1 and l.created_at > $3 and l.created_at <= $2) as "minted30d",
          (count(*) filter (where r.link_status = 'used'))::int as activated,
          (count(*) filter (where r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at > $2))::int as pending,
          (count(*) filter (where r.link_status = 'failed'))::int as failed
     from roster_entries r
    where r.company_id = $1 and r.link_status is not null`,
);

/**
 * The tiles. Each person counts by their latest link, which the database copies onto the roster row
 * (roster_entries.link_status / link_expires_at, trigger roster_entries_latest_link); pending applies
 * the lazy expiry with the app's clock. Revoked, expired and never-linked persons match no tile.
 */
export async function dashboardCounts(sql: Sql, companyId: string, now: Date, since: Date): Promise<DashboardCounts> {
  // An aggregate without group by: always one row.
  return (await sql.one<DashboardCounts>(DASHBOARD_COUNTS, [companyId, now, since]))!;
}

export interface ActivityRow {
  kind: ActivityKind;
  personName: string;
  at: Date;
}

/** The mint event's kind by how the link was handed out. */
const MINT_KIND = `case l.channel when 'export' then 'link_exported' when 'email' then 'link_sent' when 'sms' then 'link_sent'
  when 'email_sms' then 'link_sent' else 'link_issued' end`;

/**
 * The statement for `limit` events, named by it. The limit is part of the text, not a parameter, so
 * the planner sees how few rows each branch needs and walks its index.
 */
function recentActivityQuery(limit: number) {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`not an event limit: ${limit}`);
  const branch = (kind: string, at: string, where: string) =>
    `(select ${kind} as kind, l.id, l.user_id, ${at} as at from invitation_links l
       where l.company_id = $1 and ${where} and ${at} <= $2 order by ${at} desc, l.id desc limit ${limit})`;
  return query(
    `billing.recent-activity-${limit}`,
    `select e.kind, u.name as "personName", e.at
       from (${branch(MINT_KIND, 'l.created_at', 'true')}
             union all ${branch(`'link_used'`, 'l.used_at', 'l.used_at is not null')}
             union all ${branch(`'link_failed'`, 'l.updated_at', `l.status = 'failed'`)}
             union all ${branch(`'link_revoked'`, 'l.updated_at', `l.status = 'revoked'`)}
             union all ${branch(
               `'link_expired'`,
               'l.expires_at',
               `(l.status = 'expired' or l.status in (${ACTIVE_LINK_SQL})) and l.used_at is null`,
             )}) e
       join users u on u.id = e.user_id
      order by e.at desc, e.id desc, e.kind desc
      limit ${limit}`,
  );
}

/**
 * The `limit` most recent link events of the company, newest first. A link row yields its mint (at
 * created_at), its redemption (at used_at), and its end: failed or revoked at its last change
 * (updated_at), expired at expires_at when it expired unredeemed (stored `expired`, or still active
 * and past expiry by the app's clock). Each branch is limited first, so the read stays small.
 */
export async function recentActivity(sql: Sql, companyId: string, now: Date, limit: number): Promise<ActivityRow[]> {
  return sql.rows<ActivityRow>(recentActivityQuery(limit), [companyId, now]);
}
