/**
 * The people a bench server signs up and in over HTTP, like a client: a mobile user, and a
 * b2b_admin of an approved company (the role and the company by SQL: no route grants them to oneself).
 */

/** Anything with pg's `query` (a PoolClient, a Pool). */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A JSON POST to the server child at `baseUrl`: its status and body. */
export function jsonPoster(baseUrl: string) {
  return async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, json };
  };
}

/** The code of the latest OTP the memory message sender sent to `phone` (throws when none was). */
export function sentOtp(sent: { to: string; text: string }[], phone: string): string {
  const code = [...sent]
    .reverse()
    .find((m) => m.to === phone)
    ?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error('no OTP was sent');
  return code;
}

/**
 * A user signed up and in as a mobile client over HTTP, like a client; `promote` runs between the
 * two (a role or a company by SQL: no route grants them to oneself).
 */
export async function signedInUser(
  baseUrl: string,
  sent: { to: string; text: string }[],
  who: { phone: string; name: string },
  promote: (userId: string) => Promise<void> = () => Promise.resolve(),
): Promise<{ token: string; userId: string }> {
  const post = jsonPoster(baseUrl);
  const consents = ['terms_of_service', 'privacy_policy', 'data_processing'].map((type) => ({ type, version: '2026-01' }));
  const reg = await post('/auth/register', { phone: who.phone, name: who.name, consents });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.json)}`);
  const userId = reg.json.userId as string;
  await promote(userId);
  const verify = await post('/auth/verify-otp', { phone: who.phone, otp: sentOtp(sent, who.phone) }, { 'X-Client-Type': 'mobile' });
  const token = (verify.json.session as { token?: string } | undefined)?.token;
  if (verify.status !== 200 || !token) throw new Error(`verify-otp failed: ${verify.status} ${JSON.stringify(verify.json)}`);
  return { token, userId };
}

export interface CompanyAdmin {
  token: string;
  userId: string;
  companyId: string;
}

/** A b2b_admin of an approved company (insertCompanyOf writes both). */
export async function signedInCompanyAdmin(
  baseUrl: string,
  db: Queryable,
  sent: { to: string; text: string }[],
  who: { phone: string; crNumber: string; name: string },
): Promise<CompanyAdmin> {
  let companyId = '';
  const user = await signedInUser(baseUrl, sent, { phone: who.phone, name: `${who.name} admin` }, async (userId) => {
    companyId = await insertCompanyOf(db, userId, who.crNumber, who.name);
  });
  return { ...user, companyId };
}

/** An approved company with `adminUserId` as its admin, the user a b2b_admin; returns the company id. */
export async function insertCompanyOf(db: Queryable, adminUserId: string, crNumber: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `with c as (
       insert into companies (cr_number, name, contact_name, contact_email_encrypted, contact_email_hash, contact_phone_encrypted,
                              contact_phone_hash, status, payment_mode, approved_at, created_at, updated_at)
       values ($2::text, $3::text, 'Bench', 'v1.a.b.c', md5($2::text) || md5($3::text), 'v1.d.e.f', md5($3::text) || md5($2::text),
               'approved', 'flexible', now(), now(), now())
       returning id),
     m as (insert into company_users (company_id, user_id, role, created_at) select id, $1::uuid, 'admin', now() from c)
     select id from c`,
    [adminUserId, crNumber, name],
  );
  await db.query(`update users set app_role = 'b2b_admin' where id = $1`, [adminUserId]);
  return rows[0].id;
}
