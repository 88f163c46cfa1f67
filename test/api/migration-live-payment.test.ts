import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The live-payment migration on rows written before it: an order holding several live payments keeps
// the newest live; the older ones fail as superseded, so the unique index can be built.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(2);
  await db.migrations.down('Migration20261123215928_blocklists');
});
afterAll(() => db.drop());

async function payment(userId: string, orderId: string, status: string, createdAt: string) {
  const id = randomUUID();
  await db.query(
    `insert into payments (id, order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint, created_at, updated_at)
     values ($1, $2, $3, 'card_scheme_1', 'card_processor', $4, '49.00', 'SAR', $5, $6, $7, $7)`,
    [id, orderId, userId, status, `legacy-${id}`, '0'.repeat(64), createdAt],
  );
  return id;
}

it('fails all but the newest live payment of an order as superseded, then refuses a second live one', async () => {
  const userId = randomUUID();
  await db.query(`insert into users (id, name, created_at, updated_at) values ($1, 'Legacy', now(), now())`, [userId]);
  const [orderA, orderB] = [randomUUID(), randomUUID()];
  for (const id of [orderA, orderB]) {
    await db.query(
      `insert into orders (id, user_id, status, total_amount_sar, created_at, updated_at) values ($1, $2, 'pending_payment', '49.00', now(), now())`,
      [id, userId],
    );
  }
  const oldest = await payment(userId, orderA, 'processing', '2026-01-01T10:00:00Z');
  const older = await payment(userId, orderA, 'pending', '2026-01-01T10:01:00Z');
  const newest = await payment(userId, orderA, 'processing', '2026-01-01T10:02:00Z');
  const failed = await payment(userId, orderA, 'failed', '2026-01-01T10:03:00Z');
  const alone = await payment(userId, orderB, 'processing', '2026-01-01T10:00:00Z');

  await db.migrations.up('Migration20261123223147_live_payment_per_order');

  const rows = await db.query<{ id: string; status: string; failure_reason: string | null }>(
    'select id, status, failure_reason from payments where user_id = $1',
    [userId],
  );
  expect(new Map(rows.map((r) => [r.id, [r.status, r.failure_reason]]))).toEqual(
    new Map([
      [oldest, ['failed', 'superseded']],
      [older, ['failed', 'superseded']],
      [newest, ['processing', null]],
      [failed, ['failed', null]],
      [alone, ['processing', null]],
    ]),
  );
  await expect(payment(userId, orderA, 'pending', '2026-01-02T00:00:00Z')).rejects.toThrow(/payments_order_live_unique/);
});
