/**
 * The portal-reads phase's data (bench/portal-reads.ts), the shape of issue 23: a prepaid company
 * (contract paid in full) whose roster is staged through the route, 100 of its people with an
 * exported link and 5 of them activated on their seat, in a database that also holds 1,000 other
 * companies (each with a quote chain and a roster), 100,000 invitation links of 100,000 people.
 * Everything but the bench company's roster and links is written in set operations (generate_series).
 */
import type { PoolClient } from 'pg';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { insertPackages } from '../b2b/fixtures';
import { benchConfig } from '../lib/app';

export const OTHER_COMPANIES = 1_000;
export const OTHER_LINKS = 100_000;
export const EXPORTED_LINKS = 100;
export const SEAT_ACTIVATIONS = 5;
/** The prepaid line: enough seats for every exported link. */
const LINE_QTY = 500;
const PRICE = 8_000;

/** Real ciphertexts under the bench's key (the reads decrypt them): one e-mail and one phone, shared by the seeded rows. */
function ciphertexts(): { email: string; phone: string } {
  const config = benchConfig();
  const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
  return { email: cipher.encrypt('contact@portal-bench.example'), phone: cipher.encrypt('+966500000000') };
}

const CITIES = ['Acme', 'Najd', 'Riyadh', 'Gulf', 'Desert', 'Falcon', 'Oasis', 'Red Sea'];

/** The other companies, their quote chains (a submitted and an accepted version, one line each), rosters and links. */
export async function seedOthers(db: PoolClient): Promise<void> {
  const [packageId] = await insertPackages(db, 'Portal reads', 3);
  const company = (n: string) => `md5('portal-bench-company-' || ${n})::uuid`;
  const sealed = ciphertexts();
  await db.query(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash, contact_phone_encrypted,
                            contact_phone_hash, status, payment_mode, approved_at, created_at, updated_at)
     select ${company('g')}, (7000000000 + g)::text, ($1::text[])[1 + g % 8] || ' Trading ' || g, 'Contact', $3,
            encode(sha256(('pe' || g)::bytea), 'hex'), $4, encode(sha256(('pp' || g)::bytea), 'hex'),
            (array['approved', 'approved', 'approved', 'pending', 'suspended'])[1 + g % 5], 'flexible', now(),
            now() - g * interval '1 hour', now()
       from generate_series(1, $2::int) g`,
    [CITIES, OTHER_COMPANIES, sealed.email, sealed.phone],
  );
  // Two versions per company: v1 (submitted earlier, superseded) and v2, its child (accepted or submitted).
  await db.query(
    `insert into quote_versions (id, company_id, chain_root_id, version, parent_id, status, needs_user_count, created_at, updated_at)
     select md5('portal-bench-quote-' || g || '-' || v)::uuid, ${company('g')}, md5('portal-bench-quote-' || g || '-1')::uuid, v,
            case when v = 2 then md5('portal-bench-quote-' || g || '-1')::uuid end,
            case when v = 1 then 'submitted' when g % 2 = 0 then 'accepted' else 'submitted' end, 10,
            now() - g * interval '1 hour' + v * interval '1 minute', now() - g * interval '1 hour' + v * interval '1 minute'
       from generate_series(1, $1::int) g, generate_series(1, 2) v`,
    [OTHER_COMPANIES],
  );
  await db.query(
    `insert into quote_items (id, quote_version_id, package_id, qty)
     select gen_random_uuid(), id, $1, 10 from quote_versions where id in
       (select md5('portal-bench-quote-' || g || '-' || v)::uuid from generate_series(1, $2::int) g, generate_series(1, 2) v)`,
    [packageId, OTHER_COMPANIES],
  );
  for (let from = 1; from <= OTHER_LINKS; from += 25_000) {
    const to = Math.min(OTHER_LINKS, from + 24_999);
    await db.query(
      `with people as materialized (
         select n, md5('portal-bench-person-' || n)::uuid as user_id, ${company(`(1 + n % $3::int)`)} as company_id,
                now() - n * interval '1 minute' as at
           from generate_series($1::int, $2::int) n
       ), u as (
         insert into users (id, name, phone_encrypted, phone_hash, identity_type, app_role, is_active, created_at, updated_at)
         select user_id, 'Portal beneficiary ' || n, $5, encode(sha256(('portal-p' || n)::bytea), 'hex'), 'resident', 'end_user',
                true, at, at
           from people
       ), r as (
         insert into roster_entries (id, company_id, user_id, nationality, status, created_at, updated_at)
         select md5('portal-bench-roster-' || n)::uuid, company_id, user_id, 'Egypt', 'staged', at, at from people
       )
       insert into invitation_links (token_hash, user_id, company_id, roster_entry_id, package_id, status, channel, expires_at,
                                     created_at, updated_at)
       select md5('portal-bench-link-' || n), user_id, company_id, md5('portal-bench-roster-' || n)::uuid, $4::uuid,
              case when n % 7 = 0 then 'used' else 'sent' end, 'email', now() + interval '7 days', at, at
         from people`,
      [from, to, OTHER_COMPANIES, packageId, sealed.phone],
    );
  }
}

/** The bench company's prepaid contract (one line), accepted from its own quote and paid in full; returns the line. */
export async function insertPrepaidContract(db: PoolClient, companyId: string): Promise<{ itemId: string; packageId: string }> {
  const [packageId] = await insertPackages(db, 'Portal reads prepaid', 1);
  const sealed = ciphertexts();
  await db.query(
    `update companies set payment_mode = 'prepaid', contact_email_encrypted = $2, contact_phone_encrypted = $3 where id = $1`,
    [companyId, sealed.email, sealed.phone],
  );
  const { rows } = await db.query<{ item_id: string }>(
    `with q as (
       insert into quote_versions (id, company_id, chain_root_id, version, status, needs_user_count, created_at, updated_at)
       values (md5('portal-bench-own-quote')::uuid, $1::uuid, md5('portal-bench-own-quote')::uuid, 1, 'accepted', $3, now(), now())
       returning id),
     qi as (insert into quote_items (id, quote_version_id, package_id, qty) select gen_random_uuid(), q.id, $2::uuid, $3 from q),
     c as (
       insert into contracts (id, ref, company_id, quote_request_id, payment_mode, status, total_halalas, confirmed_at, created_at, updated_at)
       select gen_random_uuid(), 'CTR-PORTALBENCH1', $1::uuid, q.id, 'prepaid', 'active', $3 * $4::bigint, now(), now(), now() from q
       returning id),
     i as (insert into contract_items (id, contract_id, package_id, qty, unit_price_halalas)
           select gen_random_uuid(), c.id, $2::uuid, $3, $4 from c returning id),
     p as (insert into contract_payments (id, contract_id, method, amount_halalas, document_name, document_mime, document_bytes,
                                          idempotency_key, confirmed_at, created_at)
           select gen_random_uuid(), c.id, 'bank_transfer', $3 * $4::bigint, 'proof.pdf', 'application/pdf', '\\x25504446'::bytea,
                  'portal-bench-' || c.id, now(), now() from c)
     select i.id as item_id from i`,
    [companyId, packageId, LINE_QTY, PRICE],
  );
  return { itemId: rows[0].item_id, packageId };
}

/**
 * `count` of the exported people activated on their seat, as the activation routes leave them: the
 * link used, a paid company order with its item and an activated activation.
 */
export async function activateSeats(db: PoolClient, companyId: string, packageId: string, count: number): Promise<void> {
  const { rows } = await db.query<{ user_id: string; id: string }>(
    `select id, user_id from invitation_links where company_id = $1 and status = 'exported' order by id limit $2`,
    [companyId, count],
  );
  if (rows.length !== count) throw new Error(`only ${rows.length} exported links to activate`);
  for (const [n, link] of rows.entries()) {
    await db.query(`update invitation_links set status = 'used', used_at = now(), updated_at = now() where id = $1`, [link.id]);
    await db.query(
      `with o as (
         insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, 'paid', $4, 'SAR', now(), now()) returning id),
       i as (insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas)
             select gen_random_uuid(), o.id, $3, $5, 1, $4 from o returning id, order_id)
       insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, status, activated_at, created_at, updated_at)
       select gen_random_uuid(), i.order_id, i.id, $1, (select operator_id from packages where id = $3), $3, $5, 'activated', now(), now(), now()
         from i`,
      [link.user_id, companyId, packageId, PRICE, `89966017${String(n).padStart(11, '0')}`],
    );
  }
}

export async function settle(db: PoolClient): Promise<void> {
  await db.query(
    'vacuum (analyze) users, companies, company_users, roster_entries, invitation_links, quote_versions, quote_items, contracts, orders, activations',
  );
}
