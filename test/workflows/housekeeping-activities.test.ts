/**
 * The housekeeping activity on its own (MockActivityEnvironment, real Postgres, rows written with
 * SQL, the clock injected): each target purges exactly what is past its life and keeps the rest,
 * in bounded batches, skipping rows another transaction holds, and never touches the device blocklist.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createHousekeepingActivities, type HousekeepingActivities } from '../../activities/housekeeping';
import { PURGE_TARGETS, type PurgeTarget } from '../../workflows/contracts/housekeeping-contract';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { seedCatalog } from '../helpers/activations';
import { insertPayment } from '../helpers/webhooks';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let t: TestApp;
let userId: string;
beforeAll(async () => {
  t = await createTestApp();
  userId = (await signUp(t)).userId;
});
afterAll(() => t.close());
beforeEach(async () => {
  for (const table of [
    'otp_challenges',
    'otp_requests',
    'token_blocklist',
    'sessions',
    'rate_limits',
    'webhook_events',
    'webhook_inbox',
    'device_blocklist',
  ]) {
    await t.db.query(`delete from ${table}`);
  }
});

type PurgeInput = Parameters<HousekeepingActivities['purgeExpired']>[0];

function purge(target: PurgeTarget, keepMs: number, batchSize = 1000): Promise<{ deleted: number }> {
  const activities = createHousekeepingActivities({ db: t.db.sql, clock: t.clock });
  return new MockActivityEnvironment().run((input: PurgeInput) => activities.purgeExpired(input), { target, keepMs, batchSize });
}

/** A time `ms` before the test clock's now (negative: after it). */
const ago = (ms: number) => new Date(t.clock().getTime() - ms);
const ids = async (sql: string) => (await t.db.query<{ id: string }>(sql)).map((r) => r.id).sort();

async function otpChallenge(expiresAt: Date, consumed = false): Promise<string> {
  const id = randomUUID();
  await t.db.query(
    `insert into otp_challenges (id, purpose, user_id, phone_hash, code_hash, attempts, expires_at, consumed_at, created_at)
     values ($1, 'login', $2, $3, $4, 0, $5, $6, $7)`,
    [id, userId, 'p'.repeat(64), 'c'.repeat(64), expiresAt, consumed ? expiresAt : null, new Date(expiresAt.getTime() - 5 * MINUTE)],
  );
  return id;
}

async function session(expiresAt: Date, revoked = false): Promise<string> {
  const id = randomUUID();
  await t.db.query(
    `insert into sessions (id, user_id, client_type, expires_at, revoked_at, created_at) values ($1, $2, 'mobile', $3, $4, $5)`,
    [id, userId, expiresAt, revoked ? ago(DAY) : null, ago(40 * DAY)],
  );
  return id;
}

async function webhookEvent(provider: string, outcome: string, createdAt: Date): Promise<string> {
  const [row] = await t.db.query<{ id: string }>(
    `insert into webhook_events (provider, event_id, type, payment_id, outcome, detail, created_at)
     values ($1, $2, 'test', null, $3, '{}'::jsonb, $4) returning id`,
    [provider, `${outcome}:${randomUUID()}`, outcome, createdAt],
  );
  return row.id;
}

describe('otp_challenges: expired longer ago than the keep period', () => {
  it('purges expired codes, used or not, and keeps the recently expired and the live ones', async () => {
    const keep = DAY;
    const old = [await otpChallenge(ago(keep + MINUTE)), await otpChallenge(ago(keep + MINUTE), true)];
    const kept = [await otpChallenge(ago(keep - MINUTE)), await otpChallenge(ago(-5 * MINUTE)), await otpChallenge(ago(-5 * MINUTE), true)];

    expect(await purge('otp_challenges', keep)).toEqual({ deleted: old.length });
    expect(await ids('select id from otp_challenges')).toEqual(kept.sort());
  });
});

describe('otp_requests: older than the request window', () => {
  it('purges what the window no longer counts and keeps what it does', async () => {
    const window = 15 * MINUTE;
    const insert = async (createdAt: Date) => {
      const id = randomUUID();
      await t.db.query(`insert into otp_requests (id, identifier_hash, created_at) values ($1, $2, $3)`, [id, 'h'.repeat(64), createdAt]);
      return id;
    };
    await insert(ago(window + 1000));
    await insert(ago(DAY));
    const kept = [await insert(ago(window - 1000)), await insert(ago(0))];

    expect(await purge('otp_requests', window)).toEqual({ deleted: 2 });
    expect(await ids('select id from otp_requests')).toEqual(kept.sort());
  });
});

describe('token_blocklist: the token expired (plus the clock-skew margin)', () => {
  it('purges tokens past their lifetime and keeps those that could still be presented', async () => {
    const skew = 5 * MINUTE;
    const insert = async (hash: string, expiresAt: Date) =>
      t.db.query(`insert into token_blocklist (token_hash, expires_at, created_at) values ($1, $2, $3)`, [hash, expiresAt, ago(30 * DAY)]);
    await insert('a'.repeat(64), ago(skew + 1000));
    await insert('b'.repeat(64), ago(10 * DAY));
    await insert('c'.repeat(64), ago(skew - 1000)); // expired, but a slow clock elsewhere may still accept it
    await insert('d'.repeat(64), ago(-DAY));

    expect(await purge('token_blocklist', skew)).toEqual({ deleted: 2 });
    const left = await t.db.query<{ token_hash: string }>('select token_hash from token_blocklist order by token_hash');
    expect(left.map((r) => r.token_hash[0])).toEqual(['c', 'd']);
  });
});

describe('sessions: expired (plus the clock-skew margin)', () => {
  it('purges expired sessions, revoked or not; keeps live ones and revoked ones that have not expired', async () => {
    const skew = 5 * MINUTE;
    await session(ago(skew + 1000));
    await session(ago(DAY), true);
    const kept = [await session(ago(skew - 1000)), await session(ago(-DAY)), await session(ago(-DAY), true)];

    expect(await purge('sessions', skew)).toEqual({ deleted: 2 });
    expect(await ids('select id from sessions')).toEqual(kept.sort());
  });
});

describe('rate_limits: the window ended (plus the clock-skew margin)', () => {
  it('purges counters whose window ended and keeps running windows and counters that never expire', async () => {
    const skew = MINUTE;
    const insert = (key: string, expire: number | null) =>
      t.db.query(`insert into rate_limits ("key", points, expire) values ($1, 5, $2)`, [key, expire]);
    await insert('global:10.0.0.1', ago(skew + 1).getTime());
    await insert('global:10.0.0.2', ago(DAY).getTime());
    await insert('global:10.0.0.3', ago(skew - 1000).getTime());
    await insert('global:10.0.0.4', ago(-10 * MINUTE).getTime());
    await insert('global:10.0.0.5', null);

    expect(await purge('rate_limits', skew)).toEqual({ deleted: 2 });
    const left = await t.db.query<{ key: string }>('select "key" from rate_limits order by "key"');
    expect(left.map((r) => r.key)).toEqual(['global:10.0.0.3', 'global:10.0.0.4', 'global:10.0.0.5']);
  });
});

describe('webhook_receipts: de-duplication receipts older than the retention', () => {
  it('purges old eSIM receipts only: reconciliation records, settlement claims and young receipts stay', async () => {
    const retention = 90 * DAY;
    const old = ago(retention + MINUTE);
    await webhookEvent('esim_provider', 'enqueued', old);
    await webhookEvent('esim_provider', 'unknown_order', ago(400 * DAY));
    const kept = [
      await webhookEvent('esim_provider', 'enqueued', ago(retention - MINUTE)),
      await webhookEvent('card_processor', 'mismatch', old),
      await webhookEvent('card_processor', 'duplicate_charge', old),
      await webhookEvent('card_processor', 'settled', old),
      // An outcome housekeeping does not know is never taken for a receipt (a future record type stays).
      await webhookEvent('esim_provider', 'refund_needed', old),
      await webhookEvent('card_processor', 'enqueued', old),
    ];

    expect(await purge('webhook_receipts', retention)).toEqual({ deleted: 2 });
    expect(await ids('select id from webhook_events')).toEqual(kept.sort());
  });
});

describe('webhook_inbox: events the relay finished with, older than the retention', () => {
  it('purges delivered and skipped rows handled before the cutoff; pending rows stay whatever their age', async () => {
    const retention = 90 * DAY;
    await seedCatalog(t.db);
    const { paymentId } = await insertPayment(t);
    const inbox = async (status: string, handledAt: Date | null, receivedAt = ago(400 * DAY)) => {
      const [row] = await t.db.query<{ id: string }>(
        `insert into webhook_inbox (provider, event_id, payment_id, type, received_at, status, next_attempt_at, handled_at)
         values ('card_processor', $1, $2, 'payment_intent.succeeded', $3, $4, $3, $5) returning id::text`,
        [`evt_${randomUUID()}`, paymentId, receivedAt, status, handledAt],
      );
      return row.id;
    };
    await inbox('delivered', ago(retention + MINUTE));
    await inbox('skipped', ago(200 * DAY));
    const kept = [
      await inbox('delivered', ago(retention - MINUTE)),
      // Never handed over (Temporal away for months, say): the relay still owes it to the workflow.
      await inbox('pending', null),
    ];

    expect(await purge('webhook_inbox', retention)).toEqual({ deleted: 2 });
    expect(await ids('select id::text from webhook_inbox')).toEqual(kept.sort());
  });
});

describe('every target', () => {
  it('deletes in batches of at most batchSize, then nothing: a second run changes nothing (idempotent)', async () => {
    for (let i = 0; i < 5; i++) await session(ago(DAY));
    const live = await session(ago(-DAY));

    const batches = [];
    for (let i = 0; i < 4; i++) batches.push((await purge('sessions', 0, 2)).deleted);
    expect(batches).toEqual([2, 2, 1, 0]);
    expect(await ids('select id from sessions')).toEqual([live]);
  });

  it('skips a row another transaction holds instead of waiting for it; a later batch takes it', async () => {
    const held = await otpChallenge(ago(2 * DAY));
    await otpChallenge(ago(2 * DAY));
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      await client.query('select id from otp_challenges where id = $1 for update', [held]);
      const startedAt = Date.now();
      expect(await purge('otp_challenges', DAY)).toEqual({ deleted: 1 });
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      expect(await ids('select id from otp_challenges')).toEqual([held]);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await purge('otp_challenges', DAY)).toEqual({ deleted: 1 });
    expect(await ids('select id from otp_challenges')).toEqual([]);
  });

  it('measures time by the injected clock: a session purges once the clock passes its expiry and the margin', async () => {
    const startedAt = t.clock();
    const id = await session(ago(-DAY));
    try {
      expect(await purge('sessions', MINUTE)).toEqual({ deleted: 0 });
      t.clock.advance(DAY + MINUTE - 1000);
      expect(await purge('sessions', MINUTE)).toEqual({ deleted: 0 });
      expect(await ids('select id from sessions')).toEqual([id]);
      t.clock.advance(2000);
      expect(await purge('sessions', MINUTE)).toEqual({ deleted: 1 });
    } finally {
      t.clock.set(startedAt);
    }
  });

  it('never touches the device blocklist: a device block has no end', async () => {
    await t.db.query(`insert into device_blocklist (device_hash, created_by_id, created_at) values ($1, null, $2)`, [
      'e'.repeat(64),
      ago(3650 * DAY),
    ]);
    for (const target of PURGE_TARGETS) await purge(target, 0);
    expect(await t.db.query('select device_hash from device_blocklist')).toEqual([{ device_hash: 'e'.repeat(64) }]);
  });
});
