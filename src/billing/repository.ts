import type { EntityManager } from '@mikro-orm/postgresql';
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
            (coalesce(sum(c.amount_sar), 0) * 100)::bigint as outstanding,
            (coalesce(sum(c.amount_sar) filter (where c.created_at >= ? and c.created_at < ?), 0) * 100)::bigint as accrued
       from company_charges c
      where c.company_id = ?`;

/**
 * The company's live charges (a paid company order whose activation is alive: the balance's
 * LIVE_CHARGE rule) newest first, and their sums. The triggers of migration CompanyCharges keep one
 * row per charge in company_charges with its answer entry already rendered as JSON (the date in ISO
 * 8601 UTC with milliseconds, the amount as the order's 2-decimal total), so this is one read of one
 * table: the entries are joined as text and sent as they are (src/billing/service.ts), with no row
 * mapping, parsing or serializing per charge. The sums are
 * numeric SAR added exactly, then whole halalas, from the same rows as the entries, so Σ entries is
 * exactly `outstanding`.
 */
export async function billingCharges(em: EntityManager, companyId: string, monthFrom: Date, monthTo: Date): Promise<BillingCharges> {
  const [row] = await em.execute<{ charges: string; outstanding: string | number; accrued: string | number }[]>(BILLING_CHARGES_SQL, [
    monthFrom,
    monthTo,
    companyId,
  ]);
  return { chargesJson: row.charges, outstanding: Number(row.outstanding), accrued: Number(row.accrued) };
}

/** The company's charges version (company_charge_versions; "0" before its first charge was written). */
export async function chargesVersion(em: EntityManager, companyId: string): Promise<string> {
  const [row] = await em.execute<{ version: string }[]>(
    'select version::text as version from company_charge_versions where company_id = ?',
    [companyId],
  );
  return row?.version ?? '0';
}

export interface ChargeRow {
  entry: ChargeEntry;
  halalas: number;
}

/** The same charges as rows, for charges.csv: each entry and its amount in whole halalas. */
export async function chargeRows(em: EntityManager, companyId: string): Promise<ChargeRow[]> {
  const rows = await em.execute<{ charge_json: string; halalas: string | number }[]>(
    `select c.charge_json, (c.amount_sar * 100)::bigint as halalas
       from company_charges c
      where c.company_id = ?
      order by c.created_at desc, c.order_id desc`,
    [companyId],
  );
  return rows.map((r) => ({ entry: JSON.parse(r.charge_json) as ChargeEntry, halalas: Number(r.halalas) }));
}

export interface ActiveLineRow {
  package_id: string;
  name_en: string;
  name_ar: string;
  count: string | number;
  drawn: string | number;
}

/**
 * Flexible activeLines: per package, the activated (not deleted) activations of the company's paid
 * orders and Σ their items in halalas (the balance's activeLines rule), from company_order_lines,
 * which the same triggers keep per order and package.
 */
export async function activeLineRows(em: EntityManager, companyId: string): Promise<ActiveLineRow[]> {
  return em.execute<ActiveLineRow[]>(
    `select p.id as package_id, p.name_en, p.name_ar, sum(l.activations) as count, sum(l.halalas) as drawn
       from company_order_lines l
       join packages p on p.id = l.package_id
      where l.company_id = ?
      group by p.id, p.name_en, p.name_ar
      order by p.name_en, p.id`,
    [companyId],
  );
}

export interface DashboardCounts {
  launched: boolean;
  minted30d: number;
  activated: number;
  pending: number;
  failed: number;
}

/**
 * The tiles. Each person counts by their latest link, which the database copies onto the roster row
 * (roster_entries.link_status / link_expires_at, trigger roster_entries_latest_link); pending applies
 * the lazy expiry with the app's clock. Revoked, expired and never-linked persons match no tile.
 */
export async function dashboardCounts(em: EntityManager, companyId: string, now: Date, since: Date): Promise<DashboardCounts> {
  const [row] = await em.execute<
    { launched: boolean; minted30d: string | number; activated: string | number; pending: string | number; failed: string | number }[]
  >(
    `select exists (select 1 from invitation_links l where l.company_id = ?) as launched,
            (select count(*) from invitation_links l where l.company_id = ? and l.created_at > ? and l.created_at <= ?) as minted30d,
            count(*) filter (where r.link_status = 'used') as activated,
            count(*) filter (where r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at > ?) as pending,
            count(*) filter (where r.link_status = 'failed') as failed
       from roster_entries r
      where r.company_id = ?`,
    [companyId, companyId, since, now, now, companyId],
  );
  return {
    launched: row.launched,
    minted30d: Number(row.minted30d),
    activated: Number(row.activated),
    pending: Number(row.pending),
    failed: Number(row.failed),
  };
}

export interface ActivityRow {
  kind: ActivityKind;
  person_name: string;
  at: Date | string;
}

/** The mint event's kind by how the link was handed out. */
const MINT_KIND = `case l.channel when 'export' then 'link_exported' when 'email' then 'link_sent' when 'sms' then 'link_sent'
  when 'email_sms' then 'link_sent' else 'link_issued' end`;

/**
 * The `limit` most recent link events of the company, newest first. A link row yields its mint (at
 * created_at), its redemption (at used_at), and its end: failed or revoked at its last change
 * (updated_at), expired at expires_at when it expired unredeemed (stored `expired`, or still active
 * and past expiry by the app's clock). Each branch is limited first, so the read stays small.
 */
export async function recentActivity(em: EntityManager, companyId: string, now: Date, limit: number): Promise<ActivityRow[]> {
  const branch = (kind: string, at: string, where: string) =>
    `(select ${kind} as kind, l.id, l.user_id, ${at} as at from invitation_links l
       where l.company_id = ? and ${where} order by ${at} desc, l.id desc limit ${limit})`;
  return em.execute<ActivityRow[]>(
    `select e.kind, u.name as person_name, e.at
       from (${branch(MINT_KIND, 'l.created_at', 'l.created_at <= ?')}
             union all ${branch(`'link_used'`, 'l.used_at', 'l.used_at is not null and l.used_at <= ?')}
             union all ${branch(`'link_failed'`, 'l.updated_at', `l.status = 'failed' and l.updated_at <= ?`)}
             union all ${branch(`'link_revoked'`, 'l.updated_at', `l.status = 'revoked' and l.updated_at <= ?`)}
             union all ${branch(
               `'link_expired'`,
               'l.expires_at',
               `(l.status = 'expired' or l.status in (${ACTIVE_LINK_SQL})) and l.used_at is null and l.expires_at <= ?`,
             )}) e
       join users u on u.id = e.user_id
      order by e.at desc, e.id desc, e.kind desc
      limit ${limit}`,
    [companyId, now, companyId, now, companyId, now, companyId, now, companyId, now],
  );
}
