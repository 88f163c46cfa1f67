import { findCompany } from '../companies/repository';
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CompanyStatus, PaymentMode } from '../entities';
import { drawnHalalas } from '../contracts/repository';
import { paidHalalas } from '../contracts/payments-repository';
import { AppError } from '../http/errors';
import { REDEEMED_LINK } from '../links/repository';
import { receiptNumber } from '../payments/settle';
import { sqlOf } from '../db/transition';

/**
 * The company branch of POST /activations (spec consumer-service, "Company branch").
 *
 * A caller belongs to a company when a roster entry holds their user (roster_entries.user_id): staging
 * creates one end-user account per company and person, so that account is the seat. Failing that, a
 * company invitation link of theirs (invitation_links.user_id with a company_id) makes them a company
 * user without an entry. Company admins and members (company_users) are not seats: consumer branch.
 *
 * One seat, one SIM: the person may hold no pending, in-progress or activated activation; a failed or
 * cancelled one may be retried (its order is no longer a live charge, balance.ts LIVE_CHARGE). The
 * consumer SIM limit at create (sim-limit.ts gate 1) does not apply: the seat rule already allows one
 * live SIM, at most any identity type's limit; the workflow's gates at verification and handoff still do.
 */

/** The caller's roster entry (null: a company link names them, no entry does), with what the checks decide on. */
export interface Seat {
  rosterEntryId: string | null;
  companyId: string;
  companyStatus: CompanyStatus;
  packageId: string | null;
  contractItemId: string | null;
  /** Flexible: the mint-time price snapshot, in halalas. */
  snapshotHalalas: number | null;
  redeemed: boolean;
}

/** What the seat is charged: the package and its price (a decimal string and whole halalas). */
export interface SeatTerms {
  mode: PaymentMode;
  contractId: string;
  packageId: string;
  priceSar: string;
  priceHalalas: number;
}

/**
 * One statement, so a consumer's create pays one round trip: the caller's newest roster entry, else
 * (a company invitation link names them, no entry does) a seat with no entry, whose create answers
 * ACTIVATION_PACKAGE_NOT_ON_CONTRACT once the approval and redemption checks pass.
 */
export async function findSeat(em: EntityManager, userId: string): Promise<Seat | null> {
  const [row] = await em.execute<SeatDbRow[]>(
    `select id, company_id, company_status, package_id, contract_item_id, snapshot, redeemed from (
       select r.id, r.company_id, c.status as company_status, r.package_id, r.contract_item_id,
              (r.unit_price_sar * 100)::bigint as snapshot,
              exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
              0 as rank, r.created_at, r.id as tie
         from roster_entries r join companies c on c.id = r.company_id
        where r.user_id = ?
       union all
       select null, l.company_id, c.status, null, null, null,
              exists (select 1 from invitation_links u where u.user_id = l.user_id and u.company_id = l.company_id and ${REDEEMED_LINK('u')}),
              1, l.created_at, l.id
         from invitation_links l join companies c on c.id = l.company_id
        where l.user_id = ?
     ) seat
     order by rank, created_at desc, tie desc limit 1`,
    [userId, userId],
  );
  return row ? seatOf(row) : null;
}

interface SeatDbRow {
  id: string | null;
  company_id: string;
  company_status: CompanyStatus;
  package_id: string | null;
  contract_item_id: string | null;
  snapshot: string | number | null;
  redeemed: boolean;
}

function seatOf(row: SeatDbRow): Seat {
  return {
    rosterEntryId: row.id,
    companyId: row.company_id,
    companyStatus: row.company_status,
    packageId: row.package_id,
    contractItemId: row.contract_item_id,
    snapshotHalalas: row.snapshot === null ? null : Number(row.snapshot),
    redeemed: row.redeemed,
  };
}

/**
 * The seat's package and price under the company's active contract. Prepaid: the assigned contract
 * line (its package, its unit price); flexible: the entry's package at its price snapshot. No active
 * contract, no assignment, or another package than the body's: ACTIVATION_PACKAGE_NOT_ON_CONTRACT.
 */
export async function seatTerms(em: EntityManager, seat: Seat, requestedPackageId: string): Promise<SeatTerms> {
  if (!seat.rosterEntryId) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ROSTER_ENTRY' } });
  const [contract] = await em.execute<{ id: string; payment_mode: PaymentMode }[]>(
    `select id, payment_mode from contracts where company_id = ? and status = 'active'`,
    [seat.companyId],
  );
  if (!contract) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ACTIVE_CONTRACT' } });
  const assigned = contract.payment_mode === 'prepaid' ? await prepaidLine(em, contract.id, seat) : flexibleSnapshot(seat);
  if (!assigned) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ASSIGNED_PACKAGE' } });
  if (assigned.packageId !== requestedPackageId.toLowerCase()) {
    throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'PACKAGE_DIFFERS' } });
  }
  return {
    mode: contract.payment_mode,
    contractId: contract.id,
    packageId: assigned.packageId,
    priceHalalas: assigned.halalas,
    priceSar: (assigned.halalas / 100).toFixed(2),
  };
}

async function prepaidLine(em: EntityManager, contractId: string, seat: Seat): Promise<{ packageId: string; halalas: number } | null> {
  if (!seat.contractItemId) return null;
  const [line] = await em.execute<{ package_id: string; unit_price_halalas: string | number }[]>(
    'select package_id, unit_price_halalas from contract_items where id = ? and contract_id = ?',
    [seat.contractItemId, contractId],
  );
  return line ? { packageId: line.package_id, halalas: Number(line.unit_price_halalas) } : null;
}

/** A flexible seat is priced only by its snapshot: without one (never minted) nothing is assigned. */
function flexibleSnapshot(seat: Seat): { packageId: string; halalas: number } | null {
  return seat.packageId && seat.snapshotHalalas !== null ? { packageId: seat.packageId, halalas: seat.snapshotHalalas } : null;
}

/** The checks that need no lock, in the order the answers are decided (after the eSIM refusal). */
export function checkSeat(seat: Seat): void {
  if (seat.companyStatus !== 'approved') throw new AppError('COMPANY_NOT_APPROVED');
  if (!seat.redeemed) throw new AppError('ACTIVATION_LINK_NOT_REDEEMED');
}

/** One seat, one SIM: a pending, in-progress or activated activation of the person holds it. */
export async function checkSeatFree(em: EntityManager, userId: string): Promise<void> {
  const [row] = await em.execute<{ used: boolean }[]>(
    `select exists (select 1 from activations where user_id = ? and status in ('pending', 'in_progress', 'activated')) as used`,
    [userId],
  );
  if (row.used) throw new AppError('ACTIVATION_SEAT_ALREADY_USED');
}

/**
 * Inside the create transaction: locks the company row (as minting does, so activations and mints of
 * one company serialize), then re-checks what a parallel request could have changed: the company's
 * approval, the seat, and for flexible the balance (funded − drawn, balance.ts; committed seats are
 * advisory and not counted here, as the spec's gate says).
 */
export async function lockAndGate(em: EntityManager, userId: string, seat: Seat, terms: SeatTerms): Promise<void> {
  const company = await findCompany(sqlOf(em), seat.companyId, { lock: true });
  if (company?.status !== 'approved') throw new AppError('COMPANY_NOT_APPROVED');
  await checkSeatFree(em, userId);
  if (terms.mode !== 'flexible') return;
  const available = (await paidHalalas(sqlOf(em), terms.contractId)) - (await drawnHalalas(sqlOf(em), seat.companyId));
  if (terms.priceHalalas > available) throw new AppError('COMPANY_BALANCE_EXCEEDED');
}

/**
 * The synthetic corporate payment: the company's account paid the order when it was created. It is
 * the person's row (user_id: the receipt route is owner-only) with method `company_account` and
 * provider `company`, completed at once with a receipt number; its idempotency key names the order, so
 * it can never be a replay of a request's key (those answer a fingerprint conflict at worst).
 */
export async function insertCorporatePayment(
  em: EntityManager,
  f: { orderId: string; userId: string; priceSar: string; now: Date },
): Promise<string> {
  const key = `company-seat:${f.orderId}`;
  const [row] = await em.execute<{ id: string }[]>(
    `insert into payments (order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint,
                           receipt_number, paid_at, created_at, updated_at)
     values (?, ?, 'company_account', 'company', 'completed', ?, 'SAR', ?, ?, ?, ?, ?, ?) returning id`,
    [f.orderId, f.userId, f.priceSar, key, createHash('sha256').update(key).digest('hex'), receiptNumber(f.now), f.now, f.now, f.now],
  );
  return row.id;
}
