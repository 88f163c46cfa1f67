// Contract fixtures written with SQL (the quote workflow that confirms contracts is tested on its own):
// an accepted quote version to point at, the contract, its lines, roster rows and links holding seats.
import { randomBytes, randomUUID } from 'node:crypto';
import type { PaymentMode } from '../../src/entities';

interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface ContractFixture {
  companyId: string;
  mode?: PaymentMode;
  /** Prepaid lines; the total is Σ qty × unit price unless `totalHalalas` says otherwise. */
  items?: { packageId: string; qty: number; unitPriceHalalas: number }[];
  /** Flexible: the declared funding (default 100000 = 1000 SAR). */
  totalHalalas?: number;
  confirmedBy?: string | null;
  status?: string;
}

export interface InsertedContract {
  contractId: string;
  ref: string;
  quoteVersionId: string;
  itemIds: string[];
  totalHalalas: number;
}

/** An accepted company-authored quote version (its own chain root). */
export async function insertAcceptedQuote(db: Db, companyId: string): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into quote_versions (id, company_id, chain_root_id, version, status, created_at, updated_at)
     values ($1, $2, $1, 1, 'accepted', now(), now())`,
    [id, companyId],
  );
  return id;
}

export async function insertContract(db: Db, f: ContractFixture): Promise<InsertedContract> {
  const mode = f.mode ?? 'prepaid';
  const items = mode === 'prepaid' ? (f.items ?? []) : [];
  const total = f.totalHalalas ?? (mode === 'prepaid' ? items.reduce((s, i) => s + i.qty * i.unitPriceHalalas, 0) : 100_000);
  const quoteVersionId = await insertAcceptedQuote(db, f.companyId);
  const contractId = randomUUID();
  const ref = `CTR-${randomBytes(6).toString('hex').toUpperCase()}`;
  await db.query(
    `insert into contracts (id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_by, confirmed_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, now(), now(), now())`,
    [contractId, ref, f.companyId, quoteVersionId, mode, f.status ?? 'active', total, f.confirmedBy ?? null],
  );
  const itemIds: string[] = [];
  for (const item of items) {
    const id = randomUUID();
    await db.query(`insert into contract_items (id, contract_id, package_id, qty, unit_price_halalas) values ($1, $2, $3, $4, $5)`, [
      id,
      contractId,
      item.packageId,
      item.qty,
      item.unitPriceHalalas,
    ]);
    itemIds.push(id);
  }
  return { contractId, ref, quoteVersionId, itemIds, totalHalalas: total };
}

/** A payment row recorded by SQL (the route is tested on its own), with tiny proof bytes. */
export async function insertContractPayment(
  db: Db,
  contractId: string,
  amountHalalas: number,
  opts: { confirmedBy?: string | null; createdAt?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into contract_payments (id, contract_id, method, amount_halalas, document_name, document_mime, document_bytes,
                                    idempotency_key, confirmed_by, confirmed_at, created_at)
     values ($1, $2, 'bank_transfer', $3, 'proof.pdf', 'application/pdf', '\\x25504446'::bytea, $4, $5, now(), coalesce($6::timestamptz, now()))`,
    [id, contractId, amountHalalas, `key-${id}`, opts.confirmedBy ?? null, opts.createdAt ?? null],
  );
  return id;
}

/** A bare end user staged on the company's roster; returns the roster entry id. */
export async function insertRosterEntry(db: Db, companyId: string): Promise<{ rosterEntryId: string; userId: string }> {
  const userId = randomUUID();
  await db.query(`insert into users (id, name, app_role, created_at, updated_at) values ($1, 'Staged', 'end_user', now(), now())`, [
    userId,
  ]);
  const rosterEntryId = randomUUID();
  await db.query(
    `insert into roster_entries (id, company_id, user_id, status, created_at, updated_at) values ($1, $2, $3, 'staged', now(), now())`,
    [rosterEntryId, companyId, userId],
  );
  return { rosterEntryId, userId };
}

/** A link holding (or not) a seat of a contract line, in `status`, expiring at `expiresAt`. */
export async function insertSeatLink(
  db: Db,
  f: { companyId: string; userId: string; contractItemId: string; status: string; expiresAt: Date },
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into invitation_links (id, token_hash, user_id, company_id, contract_item_id, status, expires_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
    [id, randomBytes(32).toString('hex'), f.userId, f.companyId, f.contractItemId, f.status, f.expiresAt],
  );
  return id;
}
