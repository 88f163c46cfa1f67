import { findCompany } from '../companies';
import { createHash } from 'node:crypto';
import type { Sql } from '../db/sql';
import type { CompanyStatus, PaymentMode } from '../entities';
import { drawnHalalas, paidHalalas } from '../contracts';
import { AppError } from '../http/errors';
import { receiptNumber } from '../payments/settle';
import * as repo from './repository';

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

/** What the seat is charged: the package and its price in whole halalas. */
export interface SeatTerms {
  mode: PaymentMode;
  contractId: string;
  packageId: string;
  priceHalalas: number;
}

/**
 * The caller's newest roster entry, else (a company invitation link names them, no entry does) a seat
 * with no entry, whose create answers ACTIVATION_PACKAGE_NOT_ON_CONTRACT once the approval and
 * redemption checks pass. One statement, so a consumer's create pays one round trip.
 */
export async function findSeat(sql: Sql, userId: string): Promise<Seat | null> {
  const row = await repo.findSeatRow(sql, userId);
  if (!row) return null;
  return { ...row, snapshotHalalas: row.snapshotHalalas === null ? null : Number(row.snapshotHalalas) };
}

/**
 * The seat's package and price under the company's active contract. Prepaid: the assigned contract
 * line (its package, its unit price); flexible: the entry's package at its price snapshot. No active
 * contract, no assignment, or another package than the body's: ACTIVATION_PACKAGE_NOT_ON_CONTRACT.
 */
export async function seatTerms(sql: Sql, seat: Seat, requestedPackageId: string): Promise<SeatTerms> {
  if (!seat.rosterEntryId) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ROSTER_ENTRY' } });
  const contract = await repo.findActiveContract(sql, seat.companyId);
  if (!contract) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ACTIVE_CONTRACT' } });
  const assigned = contract.paymentMode === 'prepaid' ? await prepaidLine(sql, contract.id, seat) : flexibleSnapshot(seat);
  if (!assigned) throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'NO_ASSIGNED_PACKAGE' } });
  if (assigned.packageId !== requestedPackageId.toLowerCase()) {
    throw new AppError('ACTIVATION_PACKAGE_NOT_ON_CONTRACT', { details: { reason: 'PACKAGE_DIFFERS' } });
  }
  return {
    mode: contract.paymentMode,
    contractId: contract.id,
    packageId: assigned.packageId,
    priceHalalas: assigned.halalas,
  };
}

async function prepaidLine(sql: Sql, contractId: string, seat: Seat): Promise<{ packageId: string; halalas: number } | null> {
  if (!seat.contractItemId) return null;
  const line = await repo.findContractLine(sql, contractId, seat.contractItemId);
  return line ? { packageId: line.packageId, halalas: Number(line.unitPriceHalalas) } : null;
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
export async function checkSeatFree(sql: Sql, userId: string): Promise<void> {
  if (await repo.holdsLiveActivation(sql, userId)) throw new AppError('ACTIVATION_SEAT_ALREADY_USED');
}

/**
 * Inside the create transaction: locks the company row (as minting does, so activations and mints of
 * one company serialize), then re-checks what a parallel request could have changed: the company's
 * approval, the seat, and for flexible the balance (funded − drawn, balance.ts; committed seats are
 * advisory and not counted here, as the spec's gate says).
 */
export async function lockAndGate(tx: Sql, userId: string, seat: Seat, terms: SeatTerms): Promise<void> {
  const company = await findCompany(tx, seat.companyId, { lock: true });
  if (company?.status !== 'approved') throw new AppError('COMPANY_NOT_APPROVED');
  await checkSeatFree(tx, userId);
  if (terms.mode !== 'flexible') return;
  const available = (await paidHalalas(tx, terms.contractId)) - (await drawnHalalas(tx, seat.companyId));
  if (terms.priceHalalas > available) throw new AppError('COMPANY_BALANCE_EXCEEDED');
}

/**
 * The synthetic corporate payment: the company's account paid the order when it was created. It is
 * the person's row (user_id: the receipt route is owner-only) with method `company_account` and
 * provider `company`, completed at once with a receipt number; its idempotency key names the order, so
 * it can never be a replay of a request's key (those answer a fingerprint conflict at worst).
 */
export async function insertCorporatePayment(
  tx: Sql,
  f: { orderId: string; userId: string; priceHalalas: number; now: Date },
): Promise<string> {
  const key = `company-seat:${f.orderId}`;
  return repo.insertCorporatePaymentRow(tx, {
    ...f,
    key,
    fingerprint: createHash('sha256').update(key).digest('hex'),
    receiptNumber: receiptNumber(f.now),
  });
}
