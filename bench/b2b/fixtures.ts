/**
 * SQL fixtures of the B2B phase (bench/b2b.ts): the rows other issues' routes would have written,
 * inserted in bulk. Ids are derived from a label and a row number (md5 → uuid), so each table's
 * statement can join the rows of the one before by number, without round trips.
 */
import type { Queryable } from '../lib/sign-up';

const OPERATOR_ID = '7e57b2b0-0000-4000-8000-000000000001';

/** `count` live B2B packages (telecom operator, B2B price 80.00) named `<prefix> n`; returns their ids. */
export async function insertPackages(db: Queryable, prefix: string, count: number): Promise<string[]> {
  await db.query(
    `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
     values ($1, 'bench-b2b-operator', 'telecom', 'Bench Telecom', 'اتصالات', true, now(), now()) on conflict do nothing`,
    [OPERATOR_ID],
  );
  const { rows } = await db.query<{ id: string }>(
    `insert into packages (id, operator_id, name_en, name_ar, description_en, description_ar, data_amount_mb, voice_minutes,
                           sms_count, validity_days, price_halalas, price_b2b_halalas, is_active, created_at, updated_at)
     select md5($2 || g)::uuid, $1, $2 || ' ' || g, 'باقة ' || g, 'Bench package', 'باقة', 10240, 500, 100, 30, 9900, 8000, true, now(), now()
       from generate_series(1, $3::int) g
     returning id`,
    [OPERATOR_ID, prefix, count],
  );
  return rows.map((r) => r.id);
}

/** An active flexible contract of `totalHalalas`, paid in full (so the company can send links). */
export async function insertFlexibleContract(db: Queryable, companyId: string, totalHalalas: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `with q as (
       insert into quote_versions (id, company_id, chain_root_id, version, status, created_at, updated_at)
       values (md5('bench-quote-' || $1)::uuid, $1::uuid, md5('bench-quote-' || $1)::uuid, 1, 'accepted', now(), now()) returning id),
     c as (
       insert into contracts (id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_at, created_at, updated_at)
       select gen_random_uuid(), 'CTR-' || upper(substr(md5($1), 1, 12)), $1::uuid, q.id, 'flexible', 'active', $2, now(), now(), now() from q
       returning id)
     insert into contract_payments (id, contract_id, method, amount_halalas, document_name, document_mime, document_bytes,
                                    idempotency_key, confirmed_at, created_at)
     select gen_random_uuid(), c.id, 'bank_transfer', $2, 'proof.pdf', 'application/pdf', '\\x25504446'::bytea, 'bench-' || c.id, now(), now()
       from c
     returning contract_id as id`,
    [companyId, totalHalalas],
  );
  return rows[0].id;
}

export interface ChargeSeed {
  companyId: string;
  packageIds: string[];
  /** Live charges of the company: paid orders with an activated activation and a completed payment. */
  charges: number;
  /** Orders of the company that are not charges (their activation failed or was cancelled). */
  deadOrders: number;
  /** Consumer orders (no company) of other users, each with its activation: the rest of the table. */
  consumerOrders: number;
}

/**
 * The company's charges, spread over the last ~310 days (one every 45 minutes, so the current month
 * holds some), with odd-halala totals, and the rows around them. Returns Σ of the live charges in
 * halalas, computed by PostgreSQL from the inserted rows (what outstandingSar must be).
 */
export async function seedCharges(db: Queryable, s: ChargeSeed): Promise<{ outstandingHalalas: number }> {
  const label = `bench-b2b-${s.companyId}`;
  const people = s.charges + s.deadOrders;
  // The company's people: one order each (one seat, one SIM), on its roster.
  await db.query(
    `insert into users (id, name, app_role, identity_type, created_at, updated_at)
     select md5($1 || '-user-' || g)::uuid, 'Charged person ' || g, 'end_user', 'resident', now(), now() from generate_series(1, $2::int) g`,
    [label, people],
  );
  await db.query(
    `insert into roster_entries (id, company_id, user_id, status, created_at, updated_at)
     select md5($1 || '-roster-' || g)::uuid, $2::uuid, md5($1 || '-user-' || g)::uuid, 'staged', now(), now() from generate_series(1, $3::int) g`,
    [label, s.companyId, people],
  );
  await insertOrders(db, { label, companyId: s.companyId, packageIds: s.packageIds, from: 1, to: people, live: s.charges });
  // Consumer orders: 10 per user.
  const consumers = Math.ceil(s.consumerOrders / 10);
  const other = `${label}-consumer`;
  await db.query(
    `insert into users (id, name, app_role, identity_type, created_at, updated_at)
     select md5($1 || '-user-' || g)::uuid, 'Consumer ' || g, 'end_user', 'citizen', now(), now() from generate_series(1, $2::int) g`,
    [other, consumers],
  );
  await insertOrders(db, {
    label: other,
    companyId: null,
    packageIds: s.packageIds,
    from: 1,
    to: s.consumerOrders,
    live: s.consumerOrders,
  });
  const { rows } = await db.query<{ halalas: string }>(
    `select (sum(((g * 7919) % 100000 + 1)) )::bigint as halalas from generate_series(1, $1::int) g`,
    [s.charges],
  );
  return { outstandingHalalas: Number(rows[0].halalas) };
}

interface OrderSeed {
  label: string;
  companyId: string | null;
  packageIds: string[];
  from: number;
  to: number;
  /** Rows 1..live are live (activated, paid); the rest have a failed or cancelled activation. */
  live: number;
}

/**
 * Orders `from..to`: order n belongs to user n (company people) or user ceil(n/10) (consumers), totals
 * ((n × 7919) mod 100000 + 1) halalas, one item, one activation and, for live ones, a completed payment.
 */
async function insertOrders(db: Queryable, o: OrderSeed): Promise<void> {
  const owner = o.companyId ? 'g' : '((g + 9) / 10)';
  // $1 label, $2 from, $3 to, then each statement's own.
  const rows = `from generate_series($2::int, $3::int) g`;
  const halalas = `((g * 7919) % 100000 + 1)`;
  const at = `now() - g * interval '45 minutes'`;
  const base = [o.label, o.from, o.to];
  const pkg = `($4::uuid[])[1 + g % cardinality($4::uuid[])]`;
  await db.query(
    `insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
     select md5($1 || '-order-' || g)::uuid, md5($1 || '-user-' || ${owner})::uuid, $4::uuid,
            case when g % 10 = 0 then 'completed' else 'paid' end, ${halalas}, 'SAR', ${at}, ${at}
       ${rows}`,
    [...base, o.companyId],
  );
  await db.query(
    `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas)
     select md5($1 || '-item-' || g)::uuid, md5($1 || '-order-' || g)::uuid, ${pkg}, '8996601' || lpad(g::text, 12, '0'), 1, ${halalas}
       ${rows}`,
    [...base, o.packageIds],
  );
  await db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, activated_at, created_at, updated_at)
     select md5($1 || '-activation-' || g)::uuid, md5($1 || '-order-' || g)::uuid, md5($1 || '-item-' || g)::uuid,
            md5($1 || '-user-' || ${owner})::uuid, $5::uuid, ${pkg}, $1 || '-' || g,
            case when g <= $6::int then 'activated' when g % 2 = 0 then 'failed' else 'cancelled' end,
            case when g <= $6::int then ${at} end, ${at}, ${at}
       ${rows}`,
    [...base, o.packageIds, OPERATOR_ID, o.live],
  );
  await db.query(
    `insert into payments (id, order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                           paid_at, created_at, updated_at)
     select md5($1 || '-payment-' || g)::uuid, md5($1 || '-order-' || g)::uuid, md5($1 || '-user-' || ${owner})::uuid,
            'local_debit', 'mock', 'completed', ${halalas}, 'SAR', $1 || '-' || g, repeat('f', 64), ${at}, ${at}, ${at}
       ${rows} where g <= $4::int`,
    [...base, o.live],
  );
}
