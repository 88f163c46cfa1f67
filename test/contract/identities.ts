// The identities schemathesis fuzzes with: two end users (peers: neither may read the other's
// objects) and a super_admin. Schemathesis signs in through a tiny loopback "login endpoint"
// of ours (a Web Fuzzing Commons auth file points at it) instead of the API's OTP sign-in:
// the OTP request limit (3 per 15 minutes) would refuse the re-logins schemathesis makes
// whenever a token stops working, e.g. after it fuzzed POST /auth/logout with it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { createUser } from '../../src/cli/create-user';
import type { Config } from '../../src/config';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { createSessionService } from '../../src/auth/sessions';
import type { OutgoingMessage } from '../../src/providers/messages';

export const IDENTITY_NAMES = ['user', 'peer', 'super_admin'] as const;
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
};

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-type': 'mobile' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
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
export async function seedIdentities(deps: {
  baseUrl: string;
  messages: OutgoingMessage[];
  orm: MikroORM;
  config: Config;
}): Promise<Identity[]> {
  const user = await registerEndUser(deps.baseUrl, deps.messages, 'user');
  const peer = await registerEndUser(deps.baseUrl, deps.messages, 'peer');
  const cipher = createPersonalDataCipher(deps.config.DATA_ENCRYPTION_KEY, deps.config.DATA_HASH_KEY);
  const admin = await createUser(deps.orm.em.fork(), cipher, {
    role: 'super_admin',
    name: 'Fuzz super_admin',
    phone: PHONES.super_admin,
    'identity-type': 'citizen',
  });
  return [user, peer, { name: 'super_admin', userId: admin.id, phone: PHONES.super_admin }];
}

/** The loopback login endpoint: each POST issues a fresh mobile session, exactly as verify-otp does. */
export async function startLoginServer(deps: { orm: MikroORM; pool: Pool; config: Config; identities: Identity[] }): Promise<LoginServer> {
  const sessions = createSessionService({ orm: deps.orm, pool: deps.pool, clock: () => new Date(), config: deps.config });
  const byName = new Map(deps.identities.map((identity) => [identity.name as string, identity]));
  const server: Server = createServer((req, res) => {
    const identity = byName.get((req.url ?? '').replace(/^\/sessions\//, ''));
    if (req.method !== 'POST' || !identity) {
      res.writeHead(404).end();
      return;
    }
    sessions.issue(identity.userId, 'mobile').then(
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
