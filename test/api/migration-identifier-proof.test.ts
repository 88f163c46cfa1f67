import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The identifier-proof migration on rows written before it: an account that registered but never
// verified proved nothing, so its identifiers become claims; a verified one keeps its identifiers;
// an open code that went to two identifiers at once is spent. Then the proof-state migration: a claim
// nobody holds becomes the account's identifier again, unproven.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(2);
  await db.migrations.down('Migration20261123202542_audit_and_companies');
});
afterAll(() => db.drop());

async function legacyUser(opts: { verified: boolean; consents: boolean }) {
  const id = randomUUID();
  const hash = (kind: string) => `${kind}${id.replace(/-/g, '')}`.padEnd(64, '0').slice(0, 64);
  await db.query(
    `insert into users (id, phone_encrypted, phone_hash, email_encrypted, email_hash, name, verified_at, created_at, updated_at)
     values ($1, 'v1.p', $2, 'v1.e', $3, 'Legacy', $4, now(), now())`,
    [id, hash('a'), hash('b'), opts.verified ? new Date() : null],
  );
  if (opts.consents) {
    await db.query(`insert into consents (id, user_id, type, version, recorded_at) values ($1, $2, 'terms_of_service', '1', now())`, [
      randomUUID(),
      id,
    ]);
  }
  return { id, phoneHash: hash('a'), emailHash: hash('b') };
}

it('moves the identifiers of never-verified registrations to claims and spends dual codes', async () => {
  const unfinished = await legacyUser({ verified: false, consents: true });
  const verified = await legacyUser({ verified: true, consents: true });
  const staged = await legacyUser({ verified: false, consents: false });
  const dual = randomUUID();
  await db.query(
    `insert into otp_challenges (id, purpose, user_id, phone_hash, email_hash, code_hash, attempts, expires_at, created_at)
     values ($1, 'register', $2, $3, $4, 'x', 0, now() + interval '5 minutes', now())`,
    [dual, unfinished.id, unfinished.phoneHash, unfinished.emailHash],
  );

  await db.migrations.up('Migration20261123214916_identifier_proof');

  const rows = await db.query<Record<string, string | null>>(
    'select id, phone_hash, email_hash, pending_phone_hash, pending_email_hash, pending_phone_encrypted from users where id = any($1)',
    [[unfinished.id, verified.id, staged.id]],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(unfinished.id)).toMatchObject({
    phone_hash: null,
    email_hash: null,
    pending_phone_hash: unfinished.phoneHash,
    pending_email_hash: unfinished.emailHash,
    pending_phone_encrypted: 'v1.p',
  });
  expect(byId.get(verified.id)).toMatchObject({ phone_hash: verified.phoneHash, pending_phone_hash: null });
  expect(byId.get(staged.id)).toMatchObject({ phone_hash: staged.phoneHash, pending_phone_hash: null });
  const [code] = await db.query<{ consumed_at: Date | null }>('select consumed_at from otp_challenges where id = $1', [dual]);
  expect(code.consumed_at).not.toBeNull();
});

it('makes a claim nobody holds the account identifier, unproven; of two claimants the one that signed in wins', async () => {
  const hash = (label: string) => label.padEnd(64, '0');
  const claimant = async (opts: { verified: boolean; held?: string; claimed: string; createdAt: string }) => {
    const id = randomUUID();
    await db.query(
      `insert into users (id, email_encrypted, email_hash, pending_phone_encrypted, pending_phone_hash, name, verified_at, created_at, updated_at)
       values ($1, $2, $3, 'v1.claim', $4, 'Claimant', $5, $6, $6)`,
      [id, opts.held ? 'v1.held' : null, opts.held ?? null, opts.claimed, opts.verified ? new Date() : null, opts.createdAt],
    );
    return id;
  };
  const alone = await claimant({ verified: true, held: hash('e1'), claimed: hash('p1'), createdAt: '2026-11-01T00:00:00Z' });
  // Two accounts claim one number: the newer never signed in, the older did.
  const signedIn = await claimant({ verified: true, held: hash('e2'), claimed: hash('p2'), createdAt: '2026-11-01T00:00:00Z' });
  const unfinished = await claimant({ verified: false, claimed: hash('p2'), createdAt: '2026-11-02T00:00:00Z' });

  await db.migrations.up();

  const rows = await db.query<Record<string, string | boolean | null>>(
    'select id, phone_hash, phone_encrypted, phone_proven, pending_phone_hash, email_hash, email_proven from users where id = any($1)',
    [[alone, signedIn, unfinished]],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(alone)).toMatchObject({
    phone_hash: hash('p1'),
    phone_encrypted: 'v1.claim',
    phone_proven: false,
    pending_phone_hash: null,
    email_hash: hash('e1'),
    email_proven: true,
  });
  expect(byId.get(signedIn)).toMatchObject({ phone_hash: hash('p2'), phone_proven: false, pending_phone_hash: null });
  expect(byId.get(unfinished)).toMatchObject({ phone_hash: null, pending_phone_hash: hash('p2') });
});
