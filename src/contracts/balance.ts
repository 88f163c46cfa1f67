import type { EntityManager } from '@mikro-orm/postgresql';
import { query, type Sql } from '../db/sql';
import { sqlOf } from '../db/transition';
import type { PaymentMode } from '../entities';
import { isUuid } from '../http/fields';
import { sarOf } from '../lib/halalas';
import { findContract, SEAT_CONSUMED } from './repository';
import { paidHalalas } from './payments-repository';
import type { Balance } from './schemas';
import type { z } from '../openapi/registry';

type BalanceBody = z.input<typeof Balance>;

/**
 * GET /admin/contracts/company/:companyId/balance, exactly as the spec's table defines it. The
 * balance is the flexible drawdown ledger: no active contract, a prepaid contract (its seats are the
 * ledger, see the contract's lines) or an unknown company answer zeros and no lines, not 404.
 *
 * - drawn: the company's paid orders (orders.company_id; status paid or completed) whose activation is
 *   still alive (not failed or cancelled).
 * - committed: seats consumed (a company link `used`, or active and not past expiry) whose person has
 *   no live charge yet, priced at the roster row's mint-time snapshot (the link mint's gate subtracts
 *   it too, src/links/service.ts; the activation gate does not).
 * - activeLines: per package, the activated (not deleted) activations of those orders.
 */
export async function balanceOf(em: EntityManager, companyId: string, now: Date): Promise<BalanceBody> {
  if (!isUuid(companyId)) return zeros('prepaid');
  const contract = await findContract(em, { companyId });
  if (!contract) return zeros(await pickedMode(em, companyId));
  if (contract.payment_mode !== 'flexible') return zeros(contract.payment_mode);
  const funded = await paidHalalas(sqlOf(em), contract.id);
  const drawn = await drawnHalalas(sqlOf(em), companyId);
  const committed = await committedHalalas(em, companyId, now);
  return {
    paymentMode: 'flexible',
    fundedSar: sarOf(funded),
    drawnSar: sarOf(drawn),
    committedSar: sarOf(committed),
    availableSar: sarOf(funded - drawn),
    activeLines: await activeLines(em, companyId),
  };
}

function zeros(paymentMode: PaymentMode): BalanceBody {
  return { paymentMode, fundedSar: 0, drawnSar: 0, committedSar: 0, availableSar: 0, activeLines: [] };
}

/** The company's picked mode, prepaid if unpicked or the company is unknown. */
export async function pickedMode(em: EntityManager, companyId: string): Promise<PaymentMode> {
  const [row] = await em.execute<{ payment_mode: PaymentMode | null }[]>('select payment_mode from companies where id = ?', [companyId]);
  return row?.payment_mode ?? 'prepaid';
}

/** A paid order of the company with an activation that is still alive: a live charge. */
export const LIVE_CHARGE = (order: string) =>
  `${order}.status in ('paid', 'completed')
   and exists (select 1 from activations a where a.order_id = ${order}.id and a.status not in ('failed', 'cancelled'))`;

/** Σ order totals of the live charges: numeric SAR summed exactly, then whole halalas (also the company activation gate). */
export async function drawnHalalas(sql: Sql, companyId: string): Promise<number> {
  const row = await sql.one<{ drawn: string }>(
    query(
      'contracts.drawn',
      `select (coalesce(sum(o.total_amount_sar), 0) * 100)::bigint as drawn from orders o where o.company_id = $1 and ${LIVE_CHARGE('o')}`,
    ),
    [companyId],
  );
  return Number(row!.drawn);
}

/** One roster person counts once, however many links they hold; the price is the mint-time snapshot. */
export async function committedHalalas(em: EntityManager, companyId: string, now: Date): Promise<number> {
  const [row] = await em.execute<{ committed: string | number }[]>(
    `select (coalesce(sum(r.unit_price_sar), 0) * 100)::bigint as committed
       from roster_entries r
      where r.company_id = ?
        and exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${SEAT_CONSUMED('l', '?::timestamptz')})
        and not exists (select 1 from orders o where o.company_id = r.company_id and o.user_id = r.user_id and ${LIVE_CHARGE('o')})`,
    [companyId, now],
  );
  return Number(row.committed);
}

export async function activeLines(em: EntityManager, companyId: string): Promise<BalanceBody['activeLines']> {
  const rows = await em.execute<{ package_id: string; name_en: string; name_ar: string; count: string | number; drawn: string | number }[]>(
    `select p.id as package_id, p.name_en, p.name_ar, count(*) as count, (sum(oi.unit_price_sar * oi.quantity) * 100)::bigint as drawn
       from orders o
       join activations a on a.order_id = o.id and a.status = 'activated' and a.deleted_at is null
       join order_items oi on oi.id = a.order_item_id
       join packages p on p.id = a.package_id
      where o.company_id = ? and o.status in ('paid', 'completed')
      group by p.id, p.name_en, p.name_ar
      order by p.name_en, p.id`,
    [companyId],
  );
  return rows.map((r) => ({
    packageId: r.package_id,
    nameEn: r.name_en,
    nameAr: r.name_ar,
    count: Number(r.count),
    drawnSar: sarOf(r.drawn),
  }));
}
