// Billing and dashboard fixtures written with SQL (the link, activation and payment routes are
// other issues' and tested on their own): named roster persons, their links, and company charges.
import { randomBytes, randomUUID } from 'node:crypto';
import { halalasOfSar } from './money';

interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Person {
  rosterEntryId: string;
  userId: string;
}

/** A staged end user named `name` on the company's roster. */
export async function insertPerson(db: Db, companyId: string, name: string): Promise<Person> {
  const userId = randomUUID();
  await db.query(
    `insert into users (id, name, app_role, identity_type, created_at, updated_at) values ($1, $2, 'end_user', 'resident', now(), now())`,
    [userId, name],
  );
  const rosterEntryId = randomUUID();
  await db.query(
    `insert into roster_entries (id, company_id, user_id, status, created_at, updated_at) values ($1, $2, $3, 'staged', now(), now())`,
    [rosterEntryId, companyId, userId],
  );
  return { rosterEntryId, userId };
}

export interface LinkFixture {
  companyId: string;
  person: Person;
  status: string;
  channel?: 'email' | 'sms' | 'email_sms' | 'export' | null;
  createdAt: Date;
  expiresAt?: Date;
  usedAt?: Date | null;
  /** The row's last change (failed, revoked); default createdAt. */
  updatedAt?: Date;
  contractItemId?: string | null;
}

/** A link of a roster person; expiry defaults to 24 hours after creation. */
export async function insertLink(db: Db, f: LinkFixture): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into invitation_links (id, token_hash, user_id, company_id, roster_entry_id, contract_item_id, status, channel,
                                   expires_at, used_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      randomBytes(32).toString('hex'),
      f.person.userId,
      f.companyId,
      f.person.rosterEntryId,
      f.contractItemId ?? null,
      f.status,
      f.channel === undefined ? 'email' : f.channel,
      f.expiresAt ?? new Date(f.createdAt.getTime() + 24 * 3_600_000),
      f.usedAt ?? null,
      f.createdAt,
      f.updatedAt ?? f.createdAt,
    ],
  );
  return id;
}

export interface ChargeFixture {
  companyId: string | null;
  userId: string;
  packageId: string;
  /** Decimal string, e.g. "80.25". */
  amount: string;
  createdAt: Date;
  orderStatus?: string;
  activationStatus?: string;
  /** A payment of the order in this status; none when omitted. */
  paymentStatus?: 'completed' | 'failed' | 'pending';
}

/** An order of the company with one item and its activation, and optionally a payment; returns the ids. */
export async function insertCharge(db: Db, f: ChargeFixture): Promise<{ orderId: string; paymentId: string | null }> {
  const orderId = randomUUID();
  const itemId = randomUUID();
  const iccid = `8996600${randomUUID().replace(/\D/g, '').padEnd(12, '0').slice(0, 12)}`;
  const halalas = halalasOfSar(f.amount);
  await db.query(
    `insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
     values ($1, $2, $3, $4, $5, 'SAR', $6, $6)`,
    [orderId, f.userId, f.companyId, f.orderStatus ?? 'paid', halalas, f.createdAt],
  );
  await db.query(`insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas) values ($1, $2, $3, $4, 1, $5)`, [
    itemId,
    orderId,
    f.packageId,
    iccid,
    halalas,
  ]);
  await db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3, (select operator_id from packages where id = $4), $4, $5, $6, $7, $7)`,
    [orderId, itemId, f.userId, f.packageId, `iccid-${itemId}`, f.activationStatus ?? 'activated', f.createdAt],
  );
  if (!f.paymentStatus) return { orderId, paymentId: null };
  const paymentId = randomUUID();
  await db.query(
    `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                           paid_at, created_at, updated_at)
     values ($1, $2, $3, 'local_debit', 'mock', $4, $5, 'SAR', $6, repeat('f', 64), $7, $8, $8)`,
    [
      paymentId,
      orderId,
      f.userId,
      f.paymentStatus,
      halalas,
      `key-${paymentId}`,
      f.paymentStatus === 'completed' ? f.createdAt : null,
      f.createdAt,
    ],
  );
  return { orderId, paymentId };
}
