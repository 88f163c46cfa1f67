import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_CHARGE } from '../contracts/balance';
import { ACTIVE_LINK_STATUSES } from '../entities';
import type { ActivityKind } from './schemas';

/** The billing and dashboard reads; money stays in halalas until the view. */

export interface ChargeRow {
  order_id: string;
  created_at: Date | string;
  person_name: string;
  package_name: string | null;
  halalas: string | number;
  payment_id: string | null;
}

/**
 * One row per live charge: a paid order of the company whose activation is alive (the same rule as
 * the balance's drawn, LIVE_CHARGE), newest first. Each row's amount is the order total in whole
 * halalas, so Σ rows is exactly the drawn total. The package (the order's first item) and the
 * completed payment are joined as sets, not looked up per order: a company may have 10,000 charges.
 */
export async function chargeRows(em: EntityManager, companyId: string): Promise<ChargeRow[]> {
  return em.execute<ChargeRow[]>(
    `with live as (
       select o.id, o.user_id, o.created_at, o.total_amount_sar from orders o where o.company_id = ? and ${LIVE_CHARGE('o')}
     ), item as (
       select distinct on (oi.order_id) oi.order_id, p.name_en
         from order_items oi join live on live.id = oi.order_id join packages p on p.id = oi.package_id
        order by oi.order_id, oi.id
     ), paid as (
       select distinct on (pay.order_id) pay.order_id, pay.id
         from payments pay join live on live.id = pay.order_id
        where pay.status = 'completed'
        order by pay.order_id, pay.paid_at desc nulls last, pay.created_at desc, pay.id
     )
     select live.id as order_id, live.created_at, u.name as person_name, (live.total_amount_sar * 100)::bigint as halalas,
            item.name_en as package_name, paid.id as payment_id
       from live
       join users u on u.id = live.user_id
       left join item on item.order_id = live.id
       left join paid on paid.order_id = live.id
      order by live.created_at desc, live.id desc`,
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

const ACTIVE = ACTIVE_LINK_STATUSES.map((s) => `'${s}'`).join(', ');

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
            count(*) filter (where r.link_status in (${ACTIVE}) and r.link_expires_at > ?) as pending,
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
               `(l.status = 'expired' or l.status in (${ACTIVE})) and l.used_at is null and l.expires_at <= ?`,
             )}) e
       join users u on u.id = e.user_id
      order by e.at desc, e.id desc, e.kind desc
      limit ${limit}`,
    [companyId, now, companyId, now, companyId, now, companyId, now, companyId, now],
  );
}
