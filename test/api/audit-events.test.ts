import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { AuditEventList } from '../../src/audit/schemas';
import { writeAudit } from '../../src/audit/writer';
import { bearer, errorCode, signUp } from '../helpers/app';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';
import { superAdminApp } from '../helpers/staff';

// GET /admin/audit-events: the trail written by writeAudit, readable by super_admin, newest first, paged and filtered.
const t = superAdminApp('Root');

type List = z.infer<typeof AuditEventList>;
const list = async (query: Record<string, string> = {}, token = t.admin.token, lang = 'en') =>
  typed<List>(await request(t.app).get('/admin/audit-events').query(query).set(bearer(token)).set('Accept-Language', lang));

let minute = 0;
/** One audit row, a minute after the previous one. */
async function audit(action: `${string}.${string}`, entity: { type: string; id?: string; companyId?: string }) {
  minute += 1;
  const at = new Date(Date.UTC(2026, 10, 1, 0, minute));
  const id = await t.db.sql.transaction((tx) =>
    writeAudit(tx, {
      action,
      actorUserId: t.admin.userId,
      companyId: entity.companyId ?? null,
      entityType: entity.type,
      entityId: entity.id ?? null,
      details: { before: { n: minute - 1 }, after: { n: minute } },
      ip: '203.0.113.7',
      userAgent: 'jest',
      at,
    }),
  );
  return { id, at: at.toISOString() };
}

describe('GET /admin/audit-events', () => {
  it('is for super_admin only (401 without a session, AUTH_FORBIDDEN for others, in both languages)', async () => {
    const anonymous = await request(t.app).get('/admin/audit-events');
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
    const user = await signUp(t);
    const en = await list({}, user.token);
    expect([en.status, errorCode(en)]).toEqual([403, 'AUTH_FORBIDDEN']);
    const ar = await list({}, user.token, 'ar');
    expect([ar.status, errorCode(ar)]).toEqual([403, 'AUTH_FORBIDDEN']);
    expect(errorOf(ar).message).toBe('ليست لديك صلاحية لتنفيذ هذا الإجراء');
    expect(errorOf(en).message).not.toEqual(errorOf(ar).message);
  });

  it('lists every field, newest first, paged with the total', async () => {
    const companyId = randomUUID();
    const first = await audit('paging.first', { type: 'paging', id: 'p1', companyId });
    const second = await audit('paging.second', { type: 'paging', id: 'p2' });
    const third = await audit('paging.third', { type: 'paging', id: 'p3' });
    const page1 = await list({ entityType: 'paging', limit: '2' });
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ total: 3, page: 1, limit: 2 });
    expect(page1.body.data.events.map((e) => e.id)).toEqual([third.id, second.id]);
    const page2 = await list({ entityType: 'paging', limit: '2', page: '2' });
    expect(page2.body.data.events).toEqual([
      {
        id: first.id,
        action: 'paging.first',
        actorUserId: t.admin.userId,
        companyId,
        entityType: 'paging',
        entityId: 'p1',
        details: { before: { n: minute - 3 }, after: { n: minute - 2 } },
        ip: '203.0.113.7',
        userAgent: 'jest',
        createdAt: first.at,
      },
    ]);
  });

  it('filters by action, company and entity (combined)', async () => {
    const company = randomUUID();
    const other = randomUUID();
    const a = await audit('filter.one', { type: 'filtered', id: 'x', companyId: company });
    const b = await audit('filter.two', { type: 'filtered', id: 'y', companyId: company });
    await audit('filter.one', { type: 'filtered', id: 'x', companyId: other });
    const ids = async (q: Record<string, string>) => (await list(q)).body.data.events.map((e) => e.id);
    expect(await ids({ companyId: company })).toEqual([b.id, a.id]);
    expect(await ids({ action: 'filter.one', companyId: company })).toEqual([a.id]);
    expect(await ids({ entityType: 'filtered', entityId: 'y' })).toEqual([b.id]);
    // An entity id alone is a filter too (ids are UUIDs in practice, so one entity).
    expect(await ids({ entityId: 'y', companyId: company })).toEqual([b.id]);
    expect((await list({ action: 'filter.none' })).body.data).toEqual({ events: [], total: 0, page: 1, limit: 20 });
  });

  it('refuses bad filters and paging with VALIDATION_ERROR', async () => {
    const bad: Record<string, string>[] = [{ companyId: 'nope' }, { limit: '0' }, { limit: '101' }, { page: '0' }, { unknown: '1' }];
    for (const q of bad) {
      const res = await list(q);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('shows rows written by a real action (a blocklist) with the client address and user agent', async () => {
    const user = await signUp(t);
    const blocked = await request(t.app)
      .post(`/admin/users/${user.userId}/blocklist`)
      .set(bearer(t.admin.token))
      .set('User-Agent', 'audit-test/1')
      .send({ reason: 'Fraud report 7' });
    expect(blocked.status).toBe(200);
    const res = await list({ entityType: 'user', entityId: user.userId });
    expect(res.body.data.events).toEqual([
      match.objectContaining({
        action: 'user.blocklisted',
        actorUserId: t.admin.userId,
        details: { reason: 'Fraud report 7', revokedSessions: 1 },
        userAgent: 'audit-test/1',
        ip: match.stringMatching(/127\.0\.0\.1|::1/),
      }),
    ]);
  });
});
