import request from 'supertest';
import type { z } from 'zod';
import { readOrganizationSettings } from '../../src/settings/organization';
import { seedMockRates } from '../../src/store/stand-ins';
import type { FxRates, OrganizationSettingsOrNull, OrganizationSettingsResponse } from '../../src/settings/schemas';
import { bearer, createTestApp, errorCode, signUp } from '../helpers/app';
import { errorOf, typed } from '../helpers/responses';
import { signUpSuperAdmin, superAdminApp } from '../helpers/staff';

// Admin: settings (super_admin only): organization settings (whole-object upsert, audited) and exchange rates (store gate).
const t = superAdminApp('Root');

const read = async (token = t.admin.token) =>
  typed<z.infer<typeof OrganizationSettingsOrNull>>(await request(t.app).get('/admin/settings/organization').set(bearer(token)));
/** Each save a second after the previous one, so the audit trail has an order. */
const save = async (body: object, token = t.admin.token, lang = 'en') =>
  t.clock.advance(1000) ??
  typed<z.infer<typeof OrganizationSettingsResponse>>(
    await request(t.app)
      .patch('/admin/settings/organization')
      .set(bearer(token))
      .set('Accept-Language', lang)
      .set('User-Agent', 'settings-test/1')
      .send(body),
  );

interface AuditRow {
  actor_user_id: string;
  entity_type: string;
  entity_id: string;
  details: { before: unknown; after: unknown };
  ip: string | null;
  user_agent: string | null;
}
const audits = () =>
  t.db.query<AuditRow>(
    `select actor_user_id, entity_type, entity_id, details, ip, user_agent from audit_events
      where action = 'org.settings_updated' order by created_at, id`,
  );

const FULL = {
  legalNameEn: '  Acme Telecom LLC ',
  legalNameAr: 'أكمي للاتصالات',
  vatNumber: '300000000000003',
  crNumber: '1010101010',
  addressEn: 'Riyadh',
  addressAr: 'الرياض',
  supportEmail: 'Support@Example.com',
  supportPhone: '+966501234567',
  showVatOnReceipts: true,
  vatRatePercent: 15,
};

describe('organization settings', () => {
  // One flow: the order matters (null before the first save, then before/after in the trail).
  it('reads null until saved; saves the whole object with defaults; omitted fields are cleared; each save is audited', async () => {
    expect((await read()).body).toEqual({ data: null });
    expect(await readOrganizationSettings(t.db.sql)).toBeNull();

    const first = await save(FULL);
    expect(first.status).toBe(200);
    const stored = { ...FULL, legalNameEn: 'Acme Telecom LLC', supportEmail: 'support@example.com' };
    expect(first.body).toEqual({ data: stored });
    expect((await read()).body).toEqual({ data: stored });

    const second = await save({ legalNameEn: 'Acme', legalNameAr: 'أكمي', addressEn: null });
    const cleared = {
      legalNameEn: 'Acme',
      legalNameAr: 'أكمي',
      vatNumber: null,
      crNumber: null,
      addressEn: null,
      addressAr: null,
      supportEmail: null,
      supportPhone: null,
      showVatOnReceipts: false,
      vatRatePercent: 15,
    };
    expect(second.body).toEqual({ data: cleared });
    expect((await read()).body).toEqual({ data: cleared });
    // The PDF issue reads them with a pool or inside a transaction.
    expect(await readOrganizationSettings(t.db.sql)).toEqual(cleared);
    expect(await t.db.sql.transaction((tx) => readOrganizationSettings(tx))).toEqual(cleared);
    const [row] = await t.db.query<{ value: unknown; updated_by: string }>(
      `select value, updated_by from settings where key = 'organization'`,
    );
    expect(row).toEqual({
      value: { legalNameEn: 'Acme', legalNameAr: 'أكمي', showVatOnReceipts: false, vatRatePercent: 15 },
      updated_by: t.admin.userId,
    });

    const trail = await audits();
    expect(trail).toEqual([
      {
        actor_user_id: t.admin.userId,
        entity_type: 'organization_settings',
        entity_id: 'organization',
        details: { before: null, after: stored },
        ip: expect.stringMatching(/127\.0\.0\.1|::1/) as unknown,
        user_agent: 'settings-test/1',
      },
      expect.objectContaining({ details: { before: stored, after: cleared } }) as unknown,
    ]);
  });

  it('validates against the full schema (VALIDATION_ERROR in both languages), and a refusal changes nothing', async () => {
    const base = { legalNameEn: 'Acme', legalNameAr: 'أكمي' };
    const cases: Array<[object, string]> = [
      [{ legalNameAr: 'أكمي' }, 'legalNameEn'],
      [{ ...base, legalNameEn: '   ' }, 'legalNameEn'],
      [{ ...base, legalNameAr: '' }, 'legalNameAr'],
      [{ ...base, showVatOnReceipts: true }, 'vatNumber'],
      [{ ...base, showVatOnReceipts: true, vatNumber: null }, 'vatNumber'],
      [{ ...base, vatRatePercent: -1 }, 'vatRatePercent'],
      [{ ...base, vatRatePercent: 100.5 }, 'vatRatePercent'],
      [{ ...base, vatRatePercent: '15' }, 'vatRatePercent'],
      [{ ...base, supportEmail: 'nope' }, 'supportEmail'],
      [{ ...base, supportPhone: '0501234567' }, 'supportPhone'],
      [{ ...base, legalNameEn: 'x'.repeat(256) }, 'legalNameEn'],
      [{ ...base, extra: 1 }, ''],
    ];
    const before = await t.db.query('select value from settings');
    const auditCount = (await audits()).length;
    for (const [body, path] of cases) {
      const res = await save(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(JSON.stringify(errorOf(res).details)).toContain(`"path":"${path}`);
    }
    const ar = await save({ ...base, showVatOnReceipts: true }, t.admin.token, 'ar');
    expect([ar.status, errorCode(ar)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(ar).message).not.toEqual(errorOf(await save({ ...base, showVatOnReceipts: true })).message);
    expect(await t.db.query('select value from settings')).toEqual(before);
    expect((await audits()).length).toBe(auditCount);
  });

  it('accepts the limits: VAT rate 0 and 100, showVatOnReceipts with a VAT number', async () => {
    for (const vatRatePercent of [0, 100, 12.5]) {
      const res = await save({ legalNameEn: 'A', legalNameAr: 'ب', vatNumber: '3', showVatOnReceipts: true, vatRatePercent });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ vatRatePercent, showVatOnReceipts: true, vatNumber: '3' });
    }
  });

  it('is for super_admin only: 401 without a session, AUTH_FORBIDDEN for every other role (both languages)', async () => {
    expect(errorCode(await request(t.app).get('/admin/settings/organization'))).toBe('AUTH_REQUIRED');
    expect((await request(t.app).patch('/admin/settings/organization').send({})).status).toBe(401);
    const other = await signUp(t);
    for (const role of ['end_user', 'b2b_admin', 'support', 'activation_officer', 'admin']) {
      await t.db.query(`update users set app_role = $2, managed_areas = $3, managed_areas_write = $3 where id = $1`, [
        other.userId,
        role,
        role === 'admin' ? ['b2b'] : null,
      ]);
      const get = await read(other.token);
      expect([role, get.status, errorCode(get)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
      const patch = await save({ legalNameEn: 'X', legalNameAr: 'Y' }, other.token, 'ar');
      expect([role, patch.status, errorCode(patch)]).toEqual([role, 403, 'AUTH_FORBIDDEN']);
      expect(errorOf(patch).message).toBe('ليست لديك صلاحية لتنفيذ هذا الإجراء');
    }
  });
});

describe('GET /admin/settings/fx-rates', () => {
  const rates = async (app = t.app, token = t.admin.token, lang = 'en') =>
    typed<z.infer<typeof FxRates>>(await request(app).get('/admin/settings/fx-rates').set(bearer(token)).set('Accept-Language', lang));

  it('answers STORE_DISABLED 422 while FEATURE_ESIM_STORE is off (the default), in both languages', async () => {
    expect(t.config.FEATURE_ESIM_STORE).toBe(false);
    const en = await rates();
    expect([en.status, errorCode(en)]).toEqual([422, 'STORE_DISABLED']);
    expect(errorOf(en).message).toBe('The store is currently unavailable');
    const ar = await rates(t.app, t.admin.token, 'ar');
    expect(errorOf(ar).message).toBe('المتجر غير متاح حالياً');
  });

  it('checks the guard before the gate', async () => {
    expect(errorCode(await request(t.app).get('/admin/settings/fx-rates'))).toBe('AUTH_REQUIRED');
    const user = await signUp(t);
    const res = await rates(t.app, user.token);
    expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
  });

  // Store spec: "GET /admin/settings/fx-rates ... `{ base: USD, rates: [ { currency, ratePerUsd, fetchedAt, source } ] }`,
  // the latest fetched rate per currency. Rates come only from the FX schedule".
  it('with the gate on, answers the latest snapshot per currency (none before the first fetch)', async () => {
    const on = await createTestApp({ env: { FEATURE_ESIM_STORE: 'true' } });
    try {
      const root = await signUpSuperAdmin(on, 'Root');
      const empty = await rates(on.app, root.token);
      expect([empty.status, empty.body]).toEqual([200, { base: 'USD', rates: [] }]);

      const now = on.clock();
      const earlier = new Date(now.getTime() - 3_600_000);
      await seedMockRates(on.db.sql, earlier);
      await on.db.query(
        `insert into fx_rate_snapshots (currency, rate_per_usd, source, fetched_at) values ('SAR', 3.7512, 'feed.example', $1)`,
        [now],
      );
      const res = await rates(on.app, root.token);
      expect([res.status, res.body]).toEqual([
        200,
        {
          base: 'USD',
          rates: [
            { currency: 'AED', ratePerUsd: 3.6725, fetchedAt: earlier.toISOString(), source: 'mock' },
            { currency: 'EGP', ratePerUsd: 48.5, fetchedAt: earlier.toISOString(), source: 'mock' },
            { currency: 'EUR', ratePerUsd: 0.92, fetchedAt: earlier.toISOString(), source: 'mock' },
            { currency: 'GBP', ratePerUsd: 0.79, fetchedAt: earlier.toISOString(), source: 'mock' },
            { currency: 'SAR', ratePerUsd: 3.7512, fetchedAt: now.toISOString(), source: 'feed.example' },
          ],
        },
      ]);
    } finally {
      await on.close();
    }
  });
});
