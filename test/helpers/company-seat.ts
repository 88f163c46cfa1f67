// Company seat fixtures for POST /activations (company branch): an approved company with an active
// contract on a package the mock operator serves, and seat holders (signed-up users with a roster
// entry and, unless told otherwise, a redeemed link) written with SQL.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { PaymentMode } from '../../src/entities';
import { bearer, signUp, type TestApp } from './app';
import { DEMO, iccid } from './activations';
import { insertLink } from './billing-fixtures';
import { insertPackage } from './catalog';
import { companyAdmin } from './company-routes';
import { insertContract, insertContractPayment } from './contracts';

export interface SeatCompany {
  companyId: string;
  /** A company admin's bearer token (billing). */
  adminToken: string;
  mode: PaymentMode;
  contractId: string;
  /** Prepaid: the contract line; flexible: none. */
  itemId: string | null;
  packageId: string;
  /** The seat's price in halalas (the line's unit price, or the roster snapshot). */
  priceHalalas: number;
}

export interface SeatCompanyOptions {
  mode: PaymentMode;
  /** Default 8000 (80 SAR). */
  priceHalalas?: number;
  /** Flexible funding recorded as paid (default 100000 = 1000 SAR); prepaid: the line total is paid. */
  fundingHalalas?: number;
  /** Prepaid line size (default 10). */
  qty?: number;
}

/** A package of the mock operator (registered in the app's operator registry) with a B2B price. */
export async function mockOperatorPackage(t: TestApp, priceHalalas: number): Promise<string> {
  const id = await insertPackage(t.db);
  await t.db.query('update packages set operator_id = $2, price_b2b_halalas = $3 where id = $1', [id, DEMO.operators.mock, priceHalalas]);
  return id;
}

/** An approved company (registered by its admin through the route) with an active, paid contract. */
export async function seatCompany(t: TestApp, opts: SeatCompanyOptions): Promise<SeatCompany> {
  const admin = await companyAdmin(t, 'approved');
  await t.db.query('update companies set payment_mode = $2 where id = $1', [admin.companyId, opts.mode]);
  const priceHalalas = opts.priceHalalas ?? 8_000;
  const packageId = await mockOperatorPackage(t, priceHalalas);
  const contract = await insertContract(t.db, {
    companyId: admin.companyId,
    mode: opts.mode,
    items: opts.mode === 'prepaid' ? [{ packageId, qty: opts.qty ?? 10, unitPriceHalalas: priceHalalas }] : undefined,
    totalHalalas: opts.mode === 'flexible' ? (opts.fundingHalalas ?? 100_000) : undefined,
  });
  await insertContractPayment(t.db, contract.contractId, contract.totalHalalas);
  return {
    companyId: admin.companyId,
    adminToken: admin.token,
    mode: opts.mode,
    contractId: contract.contractId,
    itemId: contract.itemIds[0] ?? null,
    packageId,
    priceHalalas,
  };
}

export interface SeatHolder {
  token: string;
  userId: string;
  rosterEntryId: string | null;
}

export interface SeatHolderOptions {
  /** The person's latest link: `used` (redeemed, default), another status, or none at all. */
  link?: 'used' | 'sent' | 'revoked' | 'none';
  /** Whether minting assigned the seat (prepaid: the line; flexible: package and snapshot). Default true. */
  assigned?: boolean;
  name?: string;
}

/**
 * A signed-up person on the company's roster, assigned as minting leaves an entry (prepaid: package and
 * line; flexible: package and the price snapshot), holding a link of the company in the given state.
 */
export async function seatHolder(t: TestApp, company: SeatCompany, opts: SeatHolderOptions = {}): Promise<SeatHolder> {
  const user = await signUp(t, { name: opts.name ?? 'Seat Holder' });
  const assigned = opts.assigned ?? true;
  const [{ id: rosterEntryId }] = await t.db.query<{ id: string }>(
    `insert into roster_entries (company_id, user_id, status, package_id, contract_item_id, unit_price_halalas, created_at, updated_at)
     values ($1, $2, 'staged', $3, $4, $5, now(), now()) returning id`,
    [
      company.companyId,
      user.userId,
      assigned ? company.packageId : null,
      assigned && company.mode === 'prepaid' ? company.itemId : null,
      assigned && company.mode === 'flexible' ? company.priceHalalas : null,
    ],
  );
  const link = opts.link ?? 'used';
  if (link !== 'none') {
    const now = new Date();
    await insertLink(t.db, {
      companyId: company.companyId,
      person: { rosterEntryId, userId: user.userId },
      status: link,
      createdAt: new Date(now.getTime() - 60_000),
      usedAt: link === 'used' ? now : null,
      contractItemId: company.mode === 'prepaid' ? company.itemId : null,
    });
  }
  return { token: user.token, userId: user.userId, rosterEntryId };
}

/** A signed-up person named by a company link of theirs but on no roster (a link minted outside the roster). */
export async function linkedWithoutEntry(
  t: TestApp,
  company: SeatCompany,
  status: 'used' | 'sent',
): Promise<SeatHolder & { rosterEntryId: null }> {
  const user = await signUp(t, { name: 'Linked Only' });
  await t.db.query(
    `insert into invitation_links (token_hash, user_id, company_id, package_id, status, expires_at, used_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, now() + interval '1 day', $6, now(), now())`,
    [randomBytes(32).toString('hex'), user.userId, company.companyId, company.packageId, status, status === 'used' ? new Date() : null],
  );
  return { token: user.token, userId: user.userId, rosterEntryId: null };
}

/** POST /activations as the seat holder (a fresh mock serial unless given), optionally in Arabic. */
export function activateSeat(t: TestApp, token: string, body: { packageId: string; iccid?: string; simType?: string }, lang?: string) {
  const req = request(t.app).post('/activations').set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return req.send({ iccid: body.iccid ?? iccid(), packageId: body.packageId, ...(body.simType ? { simType: body.simType } : {}) });
}

/** The company's live charges (the balance's LIVE_CHARGE rule) and their sum in halalas. */
export async function liveCharges(t: TestApp, companyId: string): Promise<{ count: number; halalas: number }> {
  const [row] = await t.db.query<{ count: string; halalas: string }>(
    `select count(*) as count, coalesce(sum(o.total_halalas), 0) as halalas from orders o
      where o.company_id = $1 and o.status in ('paid', 'completed')
        and exists (select 1 from activations a where a.order_id = o.id and a.status not in ('failed', 'cancelled'))`,
    [companyId],
  );
  return { count: Number(row.count), halalas: Number(row.halalas) };
}
