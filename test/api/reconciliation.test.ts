import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { writeReconciliationRecord } from '../../src/reconciliation/records';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { typed } from '../helpers/responses';
import type { ReconciliationRecordList } from '../../src/reconciliation/schemas';
import type { z } from 'zod';

// Support's list of reconciliation records (refunds to make, duplicate charges, processor mismatches):
// super_admin only, offset-paged newest first, filterable by code; resolving one is audited.
let t: TestApp;
let admin: { token: string; userId: string };
beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t, { name: 'Support' });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [admin.userId]);
});
afterAll(() => t.close());

const list = async (query: Record<string, string> = {}, token = admin.token) =>
  typed<z.infer<typeof ReconciliationRecordList>>(
    await request(t.app).get('/admin/reconciliation-records').query(query).set(bearer(token)),
  );
const resolve = (id: string, body: object, token = admin.token) =>
  request(t.app).post(`/admin/reconciliation-records/${id}/resolve`).set(bearer(token)).send(body);

let minute = 0;
/** One record, a minute after the previous one. */
async function record(code: 'PAYMENT_REFUND_REQUIRED' | 'PAYMENT_DUPLICATE_CHARGE' | 'PAYMENT_PROVIDER_AMOUNT_MISMATCH') {
  minute += 1;
  const paymentId = randomUUID();
  const orderId = randomUUID();
  const activationId = randomUUID();
  await t.db.sql.transaction((tx) =>
    writeReconciliationRecord(tx, {
      code,
      key: `test:${paymentId}`,
      paymentId,
      orderId,
      activationId,
      reason: code === 'PAYMENT_REFUND_REQUIRED' ? 'SIM_LIMIT_EXCEEDED' : null,
      detail: { amount: '49.00', currency: 'SAR' },
      now: new Date(Date.UTC(2026, 10, 1, 0, minute)),
    }),
  );
  const [row] = await t.db.query<{ id: string }>('select id from reconciliation_records where payment_id = $1', [paymentId]);
  return { id: row.id, paymentId, orderId, activationId, createdAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString() };
}

describe('GET /admin/reconciliation-records', () => {
  it('is for super_admin only', async () => {
    const user = await signUp(t);
    const res = await list({}, user.token);
    expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
    const anonymous = await request(t.app).get('/admin/reconciliation-records');
    expect(anonymous.status).toBe(401);
  });

  it('lists open records newest first, paged, filterable by code and status', async () => {
    await t.db.query('delete from reconciliation_records');
    const refund = await record('PAYMENT_REFUND_REQUIRED');
    const duplicate = await record('PAYMENT_DUPLICATE_CHARGE');
    const newest = await record('PAYMENT_REFUND_REQUIRED');
    const done = await record('PAYMENT_PROVIDER_AMOUNT_MISMATCH');
    await t.db.query('update reconciliation_records set resolved_at = now(), resolution_note = $2 where id = $1', [done.id, 'done']);

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      data: {
        records: [
          {
            id: newest.id,
            code: 'PAYMENT_REFUND_REQUIRED',
            paymentId: newest.paymentId,
            orderId: newest.orderId,
            activationId: newest.activationId,
            reason: 'SIM_LIMIT_EXCEEDED',
            detail: { amount: '49.00', currency: 'SAR' },
            createdAt: newest.createdAt,
            resolvedAt: null,
            resolvedBy: null,
            note: null,
          },
          match.objectContaining({ id: duplicate.id, code: 'PAYMENT_DUPLICATE_CHARGE', reason: null }),
          match.objectContaining({ id: refund.id }),
        ],
        total: 3,
        page: 1,
        limit: 20,
      },
    });

    const second = await list({ page: '2', limit: '2' });
    expect(second.body.data).toEqual({ records: [match.objectContaining({ id: refund.id })], total: 3, page: 2, limit: 2 });

    const refunds = await list({ code: 'PAYMENT_REFUND_REQUIRED' });
    expect(refunds.body.data.records.map((r) => r.id)).toEqual([newest.id, refund.id]);

    const resolved = await list({ status: 'resolved' });
    expect(resolved.body.data).toMatchObject({ records: [{ id: done.id, note: 'done' }], total: 1 });
    expect((await list({ status: 'all' })).body.data.total).toBe(4);
  });

  it('refuses an unknown code or status', async () => {
    expect(errorCode(await list({ code: 'PAYMENT_SOMETHING' }))).toBe('VALIDATION_ERROR');
    expect(errorCode(await list({ status: 'closed' }))).toBe('VALIDATION_ERROR');
  });
});

describe('POST /admin/reconciliation-records/:id/resolve', () => {
  it('resolves with a note, audited in the same transaction', async () => {
    const open = await record('PAYMENT_REFUND_REQUIRED');
    const res = await resolve(open.id, { note: 'Refunded in the processor dashboard, re_123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: match.objectContaining({
        id: open.id,
        code: 'PAYMENT_REFUND_REQUIRED',
        resolvedAt: match.stringMatching(/Z$/),
        resolvedBy: admin.userId,
        note: 'Refunded in the processor dashboard, re_123',
      }),
    });
    const audit = await t.db.query(`select action, actor_user_id, entity_type, entity_id, details from audit_events where entity_id = $1`, [
      open.id,
    ]);
    expect(audit).toEqual([
      {
        action: 'reconciliation.resolved',
        actor_user_id: admin.userId,
        entity_type: 'reconciliation_record',
        entity_id: open.id,
        details: { code: 'PAYMENT_REFUND_REQUIRED', paymentId: open.paymentId, note: 'Refunded in the processor dashboard, re_123' },
      },
    ]);
    const stillOpen = await list({ code: 'PAYMENT_REFUND_REQUIRED' });
    expect(stillOpen.body.data.records.map((r) => r.id)).not.toContain(open.id);
  });

  it('resolving again answers the record as first resolved, and audits nothing more', async () => {
    const open = await record('PAYMENT_DUPLICATE_CHARGE');
    const first = await resolve(open.id, { note: 'Refunded' });
    const again = await resolve(open.id, { note: 'Refunded twice?' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const audit = await t.db.query('select id from audit_events where entity_id = $1', [open.id]);
    expect(audit).toHaveLength(1);
  });

  it('answers NOT_FOUND for an unknown or malformed id, and VALIDATION_ERROR without a note', async () => {
    expect(errorCode(await resolve(randomUUID(), { note: 'x' }))).toBe('NOT_FOUND');
    expect(errorCode(await resolve('not-a-uuid', { note: 'x' }))).toBe('NOT_FOUND');
    const open = await record('PAYMENT_REFUND_REQUIRED');
    expect(errorCode(await resolve(open.id, { note: '  ' }))).toBe('VALIDATION_ERROR');
    expect(errorCode(await resolve(open.id, {}))).toBe('VALIDATION_ERROR');
    const user = await signUp(t);
    expect(errorCode(await resolve(open.id, { note: 'x' }, user.token))).toBe('AUTH_FORBIDDEN');
  });
});
