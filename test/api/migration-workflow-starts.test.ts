import { randomUUID } from 'node:crypto';
import { DEMO, seedCatalog } from '../helpers/activations';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The workflow-starts migration on rows written before it (issue 20): the activation-recovery schedule
// it replaces would have started every `pending` activation whose start nobody saw; the migration hands
// those to the start relay as pending starts, due at once, their deadline counted from their creation.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(2);
  // The catalog as the app writes it today, taken down with the schema (the money-units migration's down()).
  await seedCatalog(db);
  await db.migrations.down('Migration20261124061733_name_trigram_indexes');
});
afterAll(() => db.drop());

let serial = 0;
async function activation(opts: { status: string; startedAt: string | null; companyId?: string; createdAt: string }) {
  const [userId, orderId, itemId, id] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  serial += 1;
  await db.query(`insert into users (id, name, created_at, updated_at) values ($1, 'Legacy', now(), now())`, [userId]);
  await db.query(
    `insert into orders (id, user_id, company_id, status, total_amount_sar, created_at, updated_at) values ($1, $2, $3, 'pending_payment', '49.00', now(), now())`,
    [orderId, userId, opts.companyId ?? null],
  );
  const iccid = `8999${String(serial).padStart(15, '0')}`;
  await db.query(
    `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_sar) values ($1, $2, $3, $4, 1, '49.00')`,
    [itemId, orderId, DEMO.packages.starter, iccid],
  );
  await db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, status, identity_status,
                              workflow_started_at, created_at, updated_at)
     select $1, $2, $3, $4, p.operator_id, p.id, $5, 'physical', $6, 'waiting', $7, $8, $8 from packages p where p.id = $9`,
    [id, orderId, itemId, userId, iccid, opts.status, opts.startedAt, opts.createdAt, DEMO.packages.starter],
  );
  return { id, orderId, userId };
}

it('turns pending activations whose start nobody saw into pending starts, and drops the marker column', async () => {
  const stranded = await activation({ status: 'pending', startedAt: null, createdAt: '2026-01-01T10:00:00Z' });
  await activation({ status: 'pending', startedAt: '2026-01-01T10:00:01Z', createdAt: '2026-01-01T10:00:00Z' });
  await activation({ status: 'failed', startedAt: null, createdAt: '2026-01-01T10:00:00Z' });

  await db.migrations.up();

  const rows = await db.query<{
    kind: string;
    workflow_id: string;
    args: unknown;
    created_at: Date;
    due: boolean;
    started_at: Date | null;
  }>('select kind, workflow_id, args, created_at, next_attempt_at <= now() as due, started_at from workflow_starts');
  expect(rows).toEqual([
    {
      kind: 'activation',
      workflow_id: `activation:${stranded.id}`,
      args: { activationId: stranded.id, userId: stranded.userId, orderId: stranded.orderId, simType: 'physical' },
      created_at: expect.anything() as unknown,
      due: true,
      started_at: null,
    },
  ]);
  expect(new Date(rows[0].created_at).toISOString()).toBe('2026-01-01T10:00:00.000Z');
  expect(
    await db.query(`select 1 from information_schema.columns where table_name = 'activations' and column_name = 'workflow_started_at'`),
  ).toEqual([]);
});
