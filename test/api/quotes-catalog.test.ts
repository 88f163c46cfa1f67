import { errorCodes } from '../../src/http/error-codes';
import { createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { signInAs } from '../helpers/company-routes';
import { call, type CatalogBody } from '../helpers/quote-api';
import { errorOf } from '../helpers/responses';
import { rosterCaller } from '../helpers/roster';

// GET /b2b/catalog and GET /admin/quotes/catalog (spec "Catalog entry (B2B)").
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const catalog = (path: string, token: string, lang?: string) => call<CatalogBody>(t, 'get', path, { token, lang });

describe('the B2B catalog', () => {
  let ids: Record<string, string>;
  beforeAll(async () => {
    ids = {
      mid: await insertPackage(t.db, { nameEn: 'Mid', nameAr: 'متوسطة', priceSarB2b: '80.00' }),
      cheap: await insertPackage(t.db, { nameEn: 'Cheap', nameAr: 'رخيصة', priceSarB2b: '49.50' }),
      odd: await insertPackage(t.db, { nameEn: 'Odd', nameAr: 'فردية', priceSarB2b: '1234.05' }),
      tieA: await insertPackage(t.db, { nameEn: 'Tie A', nameAr: 'تعادل أ', priceSarB2b: '80.00' }),
      noB2b: await insertPackage(t.db, { nameEn: 'Consumer only', priceSarB2b: null }),
      inactive: await insertPackage(t.db, { nameEn: 'Retired', priceSarB2b: '10.00', isActive: false }),
    };
    // A package of a switched-off operator cannot be activated, so it is not offered.
    await t.db.query(
      `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
       values (gen_random_uuid(), 'off-operator', 'telecom', 'Off', 'متوقف', false, now(), now())`,
    );
    ids.offOperator = await insertPackage(t.db, { nameEn: 'Off', priceSarB2b: '5.00' });
    await t.db.query(`update packages set operator_id = (select id from operators where slug = 'off-operator') where id = $1`, [
      ids.offOperator,
    ]);
  });

  const order = () => {
    const tie = [ids.mid, ids.tieA].sort();
    return [ids.cheap, ...tie, ids.odd];
  };

  it('lists active packages with a B2B price, cheapest first then by id, every field, amounts as JSON numbers', async () => {
    const admin = await rosterCaller(t);
    const res = await catalog('/b2b/catalog', admin.token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e) => e.id)).toEqual(order());
    expect(res.body.data.find((e) => e.id === ids.cheap)).toEqual({
      id: ids.cheap,
      name: 'Cheap',
      description: 'Test package',
      dataAmountMb: 10240,
      voiceMinutes: 500,
      smsCount: 100,
      validityDays: 30,
      priceSarB2b: 49.5,
      operatorName: 'B2B Telecom',
    });
    expect(res.body.data.find((e) => e.id === ids.odd)?.priceSarB2b).toBe(1234.05);
    expect(res.text).toContain('"priceSarB2b":1234.05');
  });

  it('resolves names, descriptions and the operator name from Accept-Language', async () => {
    const member = await rosterCaller(t, 'approved', 'member');
    const ar = await catalog('/b2b/catalog', member.token, 'ar-SA, en;q=0.5');
    expect(ar.body.data.find((e) => e.id === ids.cheap)).toMatchObject({
      name: 'رخيصة',
      description: 'باقة اختبار',
      operatorName: 'اتصالات الأعمال',
    });
    const en = await catalog('/b2b/catalog', member.token, 'fr');
    expect(en.body.data.find((e) => e.id === ids.cheap)?.name).toBe('Cheap');
    // No Arabic description: the English one rather than nothing.
    await t.db.query('update packages set description_ar = null where id = $1', [ids.mid]);
    expect((await catalog('/b2b/catalog', member.token, 'ar')).body.data.find((e) => e.id === ids.mid)?.description).toBe('Test package');
    await t.db.query(`update packages set description_ar = 'باقة اختبار' where id = $1`, [ids.mid]);
  });

  it('answers the same array on GET /admin/quotes/catalog for staff with b2b view', async () => {
    const admin = await rosterCaller(t);
    const portal = await catalog('/b2b/catalog', admin.token, 'ar');
    for (const staff of [await signInAs(t, 'admin', { view: ['b2b'] }), await signInAs(t, 'super_admin')]) {
      const res = await catalog('/admin/quotes/catalog', staff.token, 'ar');
      expect([res.status, res.body]).toEqual([200, portal.body]);
    }
  });

  it('is guarded: a company not approved gets its status code, staff without the area and portal users on the admin route 403', async () => {
    const pending = await rosterCaller(t, 'pending');
    const refused = await catalog('/b2b/catalog', pending.token, 'ar');
    expect([refused.status, errorCode(refused), errorOf(refused).message]).toEqual([
      403,
      'COMPANY_NOT_APPROVED',
      errorCodes.COMPANY_NOT_APPROVED.ar,
    ]);
    const suspended = await rosterCaller(t, 'suspended', 'member');
    expect(errorCode(await catalog('/b2b/catalog', suspended.token))).toBe('COMPANY_SUSPENDED');
    const noArea = await signInAs(t, 'admin', { manage: [] });
    expect(errorCode(await catalog('/admin/quotes/catalog', noArea.token))).toBe('AUTH_FORBIDDEN');
    const portalUser = await rosterCaller(t);
    expect(errorCode(await catalog('/admin/quotes/catalog', portalUser.token))).toBe('AUTH_FORBIDDEN');
    const staff = await signInAs(t, 'super_admin');
    expect(errorCode(await catalog('/b2b/catalog', staff.token))).toBe('AUTH_FORBIDDEN');
  });
});
