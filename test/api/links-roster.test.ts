import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { auditRows, insertActivation, linksOf, post, readyCompany, rosterRow } from '../helpers/links-fixtures';
import { typed } from '../helpers/responses';
import { rosterCaller, person, stage } from '../helpers/roster';

// PATCH and DELETE /b2b/roster/:rosterId: the assignment by mode, the two seat guards with lazy
// expiry, the price snapshot cleared on every write, and removal with its final re-check.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const patch = (token: string, rosterId: string, body: object, lang?: string) => {
  const req = request(t.app).patch(`/b2b/roster/${rosterId}`).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return req.send(body);
};
const remove = (token: string, rosterId: string) => request(t.app).delete(`/b2b/roster/${rosterId}`).set(bearer(token));
const exportOne = (token: string, rosterId: string, defaults: object) =>
  post(t, token, '/b2b/roster/links/export', { rosterIds: [rosterId], ...defaults }).expect(200);
const tokenOf = (res: { body: unknown }) =>
  new URL((res.body as { data: { entries: { link: string }[] } }).data.entries[0].link).hash.replace('#token=', '');

describe('PATCH /b2b/roster/:rosterId', () => {
  it('prepaid: assigns a line with its package and clears the snapshot; null clears both', async () => {
    const c = await readyCompany(t, { people: 1 });
    const [id] = c.rosterIds;
    await t.db.query(`update roster_entries set unit_price_halalas = 1250 where id = $1`, [id]);
    const res = typed<{ data: { id: string; packageId: string | null } }>(await patch(c.token, id, { contractItemId: c.itemIds[0] }));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, packageId: c.packageIds[0] });
    expect(await rosterRow(t, id)).toMatchObject({ package_id: c.packageIds[0], contract_item_id: c.itemIds[0], unit_price_halalas: null });
    expect((await patch(c.token, id, { contractItemId: null })).status).toBe(200);
    expect(await rosterRow(t, id)).toMatchObject({ package_id: null, contract_item_id: null });
    // Each write is audited as company.roster_assign, naming the entry and what it was given (ids only).
    const audits = await t.db.query(
      `select entity_type, entity_id, details from audit_events where company_id = $1 and action = 'company.roster_assign'`,
      [c.companyId],
    );
    expect(audits).toHaveLength(2);
    expect(audits).toEqual(
      expect.arrayContaining([
        { entity_type: 'roster_entry', entity_id: id, details: { contractItemId: c.itemIds[0] } },
        { entity_type: 'roster_entry', entity_id: id, details: { contractItemId: null } },
      ]),
    );
  });

  it('flexible: assigns a live B2B package; PACKAGE_NOT_FOUND outside the catalog', async () => {
    const c = await readyCompany(t, { mode: 'flexible', people: 1 });
    const [id] = c.rosterIds;
    expect((await patch(c.token, id, { packageId: c.packageIds[0] })).status).toBe(200);
    expect(await rosterRow(t, id)).toMatchObject({ package_id: c.packageIds[0], contract_item_id: null, unit_price_halalas: null });
    const unpriced = await insertPackage(t.db, { priceSarB2b: null });
    const res = await patch(c.token, id, { packageId: unpriced });
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('PACKAGE_NOT_FOUND');
  });

  it('answers VALIDATION_INVALID_INPUT for the wrong field (no mode counts as prepaid), VALIDATION_ERROR for neither or both', async () => {
    const c = await rosterCaller(t);
    await stage(t, c.token, [person()]);
    const [{ id }] = await t.db.query<{ id: string }>('select id from roster_entries where company_id = $1', [c.companyId]);
    const wrong = await patch(c.token, id, { packageId: randomUUID() }, 'ar');
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe('VALIDATION_INVALID_INPUT');
    expect(typed<{ error: { message: string } }>(wrong).body.error.message).toBe('هذا الحقل لا يتوافق مع طريقة الدفع الخاصة بالشركة');
    expect(errorCode(await patch(c.token, id, {}))).toBe('VALIDATION_ERROR');
    expect(errorCode(await patch(c.token, id, { packageId: null, contractItemId: null }))).toBe('VALIDATION_ERROR');
    // No contract: no line can be found.
    expect(errorCode(await patch(c.token, id, { contractItemId: randomUUID() }))).toBe('CONTRACT_ITEM_NOT_FOUND');
    const flex = await readyCompany(t, { mode: 'flexible', people: 1 });
    expect(errorCode(await patch(flex.token, flex.rosterIds[0], { contractItemId: null }))).toBe('VALIDATION_INVALID_INPUT');
  });

  it('ROSTER_ENTRY_NOT_FOUND for another company’s entry and an unknown id; a non-UUID is VALIDATION_ERROR ("bad id")', async () => {
    const c = await readyCompany(t, { people: 1 });
    const other = await readyCompany(t, { people: 1 });
    for (const id of [other.rosterIds[0], randomUUID()]) {
      const res = await patch(c.token, id, { contractItemId: null });
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe('ROSTER_ENTRY_NOT_FOUND');
      expect(errorCode(await remove(c.token, id))).toBe('ROSTER_ENTRY_NOT_FOUND');
    }
    for (const res of [await patch(c.token, 'nope', { contractItemId: null }), await remove(c.token, 'nope')]) {
      expect([res.status, errorCode(res), (res.body as { error: { details: unknown } }).error.details]).toEqual([
        400,
        'VALIDATION_ERROR',
        [{ path: 'rosterId', message: 'Must be a UUID' }],
      ]);
    }
  });

  it('guards: an open link is ROSTER_LINK_OPEN, a stale one never blocks, a redeemed one is ROSTER_SEAT_CONSUMED', async () => {
    const c = await readyCompany(t, { people: 2 });
    const [a, b] = c.rosterIds;
    await exportOne(c.token, a, { contractItemId: c.itemIds[0] });
    const open = await patch(c.token, a, { contractItemId: null });
    expect(open.status).toBe(409);
    expect(errorCode(open)).toBe('ROSTER_LINK_OPEN');
    expect(errorCode(await remove(c.token, a))).toBe('ROSTER_LINK_OPEN');
    // Past its expiry the same row no longer blocks (lazy expiry), and the write clears the snapshot.
    t.clock.advance(25 * HOUR);
    try {
      expect((await patch(c.token, a, { contractItemId: c.itemIds[0] })).status).toBe(200);
      expect((await rosterRow(t, a)).unit_price_halalas).toBeNull();
    } finally {
      t.clock.advance(-25 * HOUR);
    }
    const minted = await exportOne(c.token, b, { contractItemId: c.itemIds[0] });
    await request(t.app)
      .post('/auth/magic-link')
      .send({ token: tokenOf(minted) })
      .expect(200);
    const used = await patch(c.token, b, { contractItemId: null });
    expect(used.status).toBe(409);
    expect(errorCode(used)).toBe('ROSTER_SEAT_CONSUMED');
    expect(errorCode(await remove(c.token, b))).toBe('ROSTER_SEAT_CONSUMED');
  });
});

describe('DELETE /b2b/roster/:rosterId', () => {
  it('removes sessions, links, the roster row and the staged account', async () => {
    const c = await readyCompany(t, { people: 1 });
    const [id] = c.rosterIds;
    const { user_id: userId } = await rosterRow(t, id);
    await exportOne(c.token, id, { contractItemId: c.itemIds[0] });
    await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [id] }).expect(200);
    expect(await linksOf(t, id)).toHaveLength(1);
    const res = await remove(c.token, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { removed: true } });
    expect(await t.db.query('select 1 from roster_entries where id = $1', [id])).toHaveLength(0);
    expect(await t.db.query('select 1 from users where id = $1', [userId])).toHaveLength(0);
    expect(await t.db.query('select 1 from invitation_links where user_id = $1', [userId])).toHaveLength(0);
    expect(errorCode(await remove(c.token, id))).toBe('ROSTER_ENTRY_NOT_FOUND');
    // Audited once as company.roster_remove (the refused second call writes nothing).
    expect(await auditRows(t, c.companyId, 'company.roster_remove')).toEqual([{ details: {} }]);
  });

  it('refuses with ROSTER_SEAT_CONSUMED when the account is no longer bare (an activation ever)', async () => {
    const c = await readyCompany(t, { people: 1 });
    const [id] = c.rosterIds;
    const { user_id: userId } = await rosterRow(t, id);
    await insertActivation(t, { userId, packageId: c.packageIds[0], status: 'cancelled' });
    const res = await remove(c.token, id);
    expect(res.status).toBe(409);
    expect(errorCode(res)).toBe('ROSTER_SEAT_CONSUMED');
    expect(await t.db.query('select 1 from roster_entries where id = $1', [id])).toHaveLength(1);
    expect(await auditRows(t, c.companyId, 'company.roster_remove')).toEqual([]);
  });

  it('is refused to a viewer (AUTH_FORBIDDEN)', async () => {
    const c = await readyCompany(t, { people: 1 });
    const viewer = await rosterCaller(t, 'approved', 'member');
    await t.db.query('update company_users set company_id = $1 where user_id = $2', [c.companyId, viewer.userId]);
    expect(errorCode(await remove(viewer.token, c.rosterIds[0]))).toBe('AUTH_FORBIDDEN');
  });
});
