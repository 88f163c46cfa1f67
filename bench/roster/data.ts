/**
 * The roster phase's rows (bench/roster.ts): the bench company's people, staged through the route,
 * and the other companies' rosters that grow the table, inserted by SQL.
 */
import type { PoolClient } from 'pg';

export const ROSTER_SMALL_ROWS = 10_000;
export const ROSTER_LARGE_ROWS = 100_000;
export const ROSTER_COMPANIES = 1_000;

/** The n-th staged person of the bench company: a unique phone, and an e-mail on every other row. */
export const benchPerson = (n: number) => ({
  name: `Bench person ${n}`,
  phone: `+4477${String(n).padStart(8, '0')}`,
  ...(n % 2 === 0 ? { email: `bench.person.${n}@roster.example` } : {}),
  identityType: n % 3 === 0 ? 'visitor' : 'resident',
  nationality: n % 5 === 0 ? null : 'Egypt',
});

/**
 * `rows` roster rows spread over `companies` approved companies, each row with its own staged
 * account (phone and e-mail ciphertext placeholders, unique 64-hex hashes), in set operations.
 */
export async function seedOtherCompanies(db: PoolClient, rows: number, companies: number): Promise<number> {
  await db.query(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash, contact_phone_encrypted,
                            contact_phone_hash, status, approved_at, created_at, updated_at)
     select md5('bench-company-' || c)::uuid, (8000000000 + c)::text, 'Bench company ' || c, 'Contact', 'v1.a.b.c', repeat('a', 64),
            'v1.d.e.f', repeat('b', 64), 'approved', now(), now() - interval '30 days', now()
       from generate_series(1, $1::int) c`,
    [companies],
  );
  let inserted = 0;
  for (let from = 1; from <= rows; from += 30_000) {
    const to = Math.min(rows, from + 29_999);
    const res = await db.query(
      `with people as materialized (
         select n, md5('bench-roster-user-' || n)::uuid as user_id,
                md5('bench-company-' || (1 + n % $3::int))::uuid as company_id,
                date_trunc('milliseconds', now() - random() * interval '30 days') as created_at
           from generate_series($1::int, $2::int) n
       ), u as (
         insert into users (id, name, phone_encrypted, phone_hash, email_encrypted, email_hash, identity_type, app_role, is_active,
                            created_at, updated_at)
         select user_id, 'Bench beneficiary ' || n, 'v1.x.y.z', encode(sha256(('p' || n)::bytea), 'hex'),
                case when n % 2 = 0 then 'v1.x.y.z' end, case when n % 2 = 0 then encode(sha256(('e' || n)::bytea), 'hex') end,
                'resident', 'end_user', true, created_at, created_at
           from people
       )
       insert into roster_entries (company_id, user_id, nationality, status, created_at, updated_at)
       select company_id, user_id, 'Egypt', case when n % 10 = 0 then 'enabled' else 'staged' end, created_at, created_at from people`,
      [from, to, companies],
    );
    inserted += res.rowCount ?? 0;
  }
  return inserted;
}

export async function settle(db: PoolClient): Promise<void> {
  await db.query('vacuum (analyze) users, companies, company_users, roster_entries, invitation_links');
  await db.query('checkpoint');
}
