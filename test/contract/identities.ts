// The identities schemathesis fuzzes with: two end users (peers: neither may read the other's
// objects), a super_admin, and a company admin (b2b_admin, `admin` member of an approved company
// with an active paid prepaid contract and a staged roster, some of it with links) for /b2b/*. Schemathesis signs in through a tiny loopback "login endpoint"
// of ours (a Web Fuzzing Commons auth file points at it) instead of the API's OTP sign-in:
// the OTP request limit (3 per 15 minutes) would refuse the re-logins schemathesis makes
// whenever a token stops working, e.g. after it fuzzed POST /auth/logout with it.
import type { Db } from '../../src/db/sql';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '../../src/catalog/demo-seed';
import { createUser } from '../../src/cli/create-user';
import type { Config } from '../../src/config';
import type { AppRole } from '../../src/entities';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { createSessionService } from '../../src/auth/sessions';
import type { OutgoingMessage } from '../../src/providers/messages';

/**
 * The order is schemathesis' order of trying them per operation (after `user` it tries no
 * credentials, then the rest): the company admin comes last, so every operation another identity
 * was admitted to keeps it, and the /b2b/* operations, which refuse all the others with 403
 * (AUTH_FORBIDDEN), settle on the company admin.
 */
export const IDENTITY_NAMES = ['user', 'peer', 'super_admin', 'company_admin'] as const;
export type IdentityName = (typeof IDENTITY_NAMES)[number];

export interface Identity {
  name: IdentityName;
  userId: string;
  phone: string;
}

export interface LoginServer {
  /** `POST <url>/<name>` answers `{ token }`: a new mobile session of that identity. */
  url: string;
  close(): Promise<void>;
}

const CONSENTS = ['terms_of_service', 'privacy_policy', 'data_processing'].map((type) => ({ type, version: '2026-01' }));

const PHONES: Record<IdentityName, string> = {
  user: '+966500000101',
  peer: '+966500000102',
  super_admin: '+966500000109',
  company_admin: '+966500000110',
};

type Json = Record<string, unknown>;

async function post(url: string, body: unknown, token?: string, method = 'POST'): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-type': 'mobile', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** An end user as a person becomes one: register over HTTP with the three consents, then verify the OTP. */
async function registerEndUser(baseUrl: string, messages: OutgoingMessage[], name: IdentityName): Promise<Identity> {
  const phone = PHONES[name];
  const reg = await post(`${baseUrl}/auth/register`, { phone, name: `Fuzz ${name}`, consents: CONSENTS });
  if (reg.status !== 201) throw new Error(`register ${name}: ${reg.status} ${JSON.stringify(reg.body)}`);
  const code = [...messages]
    .reverse()
    .find((m) => m.to === phone)
    ?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`register ${name}: no OTP was sent`);
  const verify = await post(`${baseUrl}/auth/verify-otp`, { phone, otp: code });
  if (verify.status !== 200) throw new Error(`verify ${name}: ${verify.status} ${JSON.stringify(verify.body)}`);
  return { name, userId: String(reg.body.userId), phone };
}

/** The end users through the API, the super_admin as `npm run create-user` makes one. */
export async function seedIdentities(deps: { baseUrl: string; messages: OutgoingMessage[]; db: Db; config: Config }): Promise<Identity[]> {
  const user = await registerEndUser(deps.baseUrl, deps.messages, 'user');
  const peer = await registerEndUser(deps.baseUrl, deps.messages, 'peer');
  const cipher = createPersonalDataCipher(deps.config.DATA_ENCRYPTION_KEY, deps.config.DATA_HASH_KEY);
  const admin = await createUser(deps.db, cipher, {
    role: 'super_admin',
    name: 'Fuzz super_admin',
    phone: PHONES.super_admin,
    'identity-type': 'citizen',
  });
  const superAdmin: Identity = { name: 'super_admin', userId: admin.id, phone: PHONES.super_admin };
  const companyAdmin = await seedCompanyAdmin({ ...deps, cipher, superAdmin });
  return [user, peer, superAdmin, companyAdmin];
}

/** A PDF's signature is all the payment's proof check reads. */
const PROOF_PDF = Buffer.from('%PDF-1.4\n% fuzz bank transfer slip\n%%EOF\n').toString('base64');

/** The roster the company stages: non-Saudi numbers and e-mails of its own. */
const ROSTER = Array.from({ length: 6 }, (_, i) => ({
  name: `Fuzz staff ${i + 1}`,
  phone: `+44770090010${i}`,
  email: `fuzz.staff${i + 1}@company.example`,
  identityType: i % 2 ? 'resident' : 'citizen',
}));

/**
 * The company admin as the portal makes one, through the routes and the real company and quote
 * runs: a b2b_admin (created as `npm run create-user` does, as the super_admin's invitation would)
 * registers the company, the super_admin approves it, the company picks prepaid and submits a
 * quote, the super_admin confirms the contract and records its payment in full, the company stages
 * a roster and exports links for two of its people. Every later /b2b/* request of the fuzzer then
 * reaches the routes' own logic with a ready company behind it.
 */
async function seedCompanyAdmin(deps: {
  baseUrl: string;
  db: Db;
  config: Config;
  cipher: ReturnType<typeof createPersonalDataCipher>;
  superAdmin: Identity;
}): Promise<Identity> {
  const sessions = createSessionService({ db: deps.db, clock: () => new Date(), config: deps.config });
  const admin = await createUser(deps.db, deps.cipher, {
    role: 'b2b_admin',
    name: 'Fuzz company admin',
    phone: PHONES.company_admin,
    'identity-type': 'citizen',
  });
  const portal = (await sessions.issue(admin.id, 'mobile')).token;
  const root = (await sessions.issue(deps.superAdmin.userId, 'mobile')).token;
  const step = async (what: string, path: string, body: unknown, token: string, expected: number, method = 'POST') => {
    const res = await post(`${deps.baseUrl}${path}`, body, token, method);
    if (res.status !== expected) throw new Error(`company admin: ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as Json;
  };
  const registered = await step(
    'register the company',
    '/b2b/company',
    {
      inKsa: true,
      crNumber: '1010101010',
      name: 'Fuzz Company',
      contactName: 'Fuzz company admin',
      contactEmail: 'admin@company.example',
      contactPhone: PHONES.company_admin,
    },
    portal,
    201,
  );
  const companyId = String((registered.company as Json).id);
  await step('approve', `/admin/companies/${companyId}/status`, { action: 'approve', reason: 'fuzz company' }, root, 200);
  await step('pick prepaid', '/b2b/company/payment-mode', { paymentMode: 'prepaid' }, portal, 200, 'PATCH');
  const quote = await step(
    'quote',
    '/b2b/quotes',
    { needs: { userCount: 10, preference: 'data', budgetSar: 1000 }, items: [{ packageId: DEMO.packages.starter, qty: 10 }] },
    portal,
    201,
  );
  await step('submit the quote', `/b2b/quotes/${String(quote.id)}/submit`, undefined, portal, 200);
  const contract = await step('confirm the contract', `/admin/quotes/${String(quote.id)}/confirm-contract`, undefined, root, 201);
  await step(
    'pay the contract',
    `/admin/contracts/${String(contract.id)}/payments`,
    {
      method: 'bank_transfer',
      amountSar: contract.totalSar,
      idempotencyKey: 'fuzz-company-payment',
      document: { name: 'transfer.pdf', mime: 'application/pdf', dataBase64: PROOF_PDF },
    },
    root,
    201,
  );
  const staged = await step('stage the roster', '/b2b/roster/stage', { rows: ROSTER }, portal, 200);
  if (staged.staged !== ROSTER.length) throw new Error(`company admin: staged ${JSON.stringify(staged)}`);
  const roster = await step('read the roster', '/b2b/roster', undefined, portal, 200, 'GET');
  const rosterIds = (roster.entries as Json[]).slice(0, 2).map((e) => String(e.id));
  const itemId = String(((contract.items as Json[])[0] ?? {}).id);
  await step('export two links', '/b2b/roster/links/export', { rosterIds, contractItemId: itemId }, portal, 200);
  return { name: 'company_admin', userId: admin.id, phone: PHONES.company_admin };
}

/**
 * An identity whose account the fuzzer deleted (it fuzzes POST /auth/me/deletion-request with it)
 * signs up again, as the person could the same day: a new account on the same phone (the deletion
 * released it), with the same role, name and consents, in the same company. Otherwise every later
 * request of that identity would answer AUTH_REQUIRED for the rest of the run.
 */
async function signedUpAgain(db: Db, cipher: ReturnType<typeof createPersonalDataCipher>, identity: Identity): Promise<Identity> {
  const [old] = await db.rows<{ deleted: boolean; role: AppRole; name: string; identityType: 'citizen' | 'resident' | 'visitor' }>(
    `select deletion_requested_at is not null as deleted, app_role as role, name, identity_type as "identityType" from users where id = $1`,
    [identity.userId],
  );
  if (!old?.deleted) return identity;
  const fresh = await createUser(db, cipher, { role: old.role, name: old.name, phone: identity.phone, 'identity-type': old.identityType });
  await db.exec(
    `insert into consents (id, user_id, type, version, recorded_at) select gen_random_uuid(), $1, t, '2026-01', now() from unnest($2::text[]) t`,
    [fresh.id, CONSENTS.map((c) => c.type)],
  );
  await db.exec('update company_users set user_id = $2 where user_id = $1', [identity.userId, fresh.id]);
  return { ...identity, userId: fresh.id };
}

/** The loopback login endpoint: each POST issues a fresh mobile session, exactly as verify-otp does. */
export async function startLoginServer(deps: { db: Db; config: Config; identities: Identity[] }): Promise<LoginServer> {
  const sessions = createSessionService({ db: deps.db, clock: () => new Date(), config: deps.config });
  const cipher = createPersonalDataCipher(deps.config.DATA_ENCRYPTION_KEY, deps.config.DATA_HASH_KEY);
  const byName = new Map(deps.identities.map((identity) => [identity.name as string, identity]));
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/sessions\//, '');
    const identity = byName.get(name);
    if (req.method !== 'POST' || !identity) {
      res.writeHead(404).end();
      return;
    }
    signedUpAgain(deps.db, cipher, identity)
      .then((current) => (byName.set(name, current), sessions.issue(current.userId, 'mobile')))
      .then(
        (session) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: session.token })),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sessions`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A Web Fuzzing Commons auth document (schemathesis `[auth.wfc]`): one entry per identity, each
 * signing in at our login endpoint and sending `Authorization: Bearer <token>`. Schemathesis tries
 * them in this order per operation and keeps the first one the operation admits.
 */
export function wfcAuthDocument(loginUrl: string): object {
  return {
    schemaVersion: '0.2.0',
    auth: IDENTITY_NAMES.map((name) => ({
      name,
      loginEndpointAuth: {
        verb: 'POST',
        externalEndpointURL: `${loginUrl}/${name}`,
        token: {
          extractFrom: 'body',
          extractSelector: '/token',
          sendIn: 'header',
          sendName: 'Authorization',
          sendTemplate: 'Bearer {token}',
        },
      },
    })),
  };
}
