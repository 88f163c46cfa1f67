import request from 'supertest';
import type { z } from 'zod';
import type { DashboardResponse } from '../../src/billing/schemas';
import { errorCodes } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertLink, insertPerson, type LinkFixture, type Person } from '../helpers/billing-fixtures';
import { insertCompany } from '../helpers/companies';
import { companyPerson, fakeCompanyRuns, signInAs } from '../helpers/company-routes';
import { errorOf, typed } from '../helpers/responses';
import { person, rosterCaller, stage } from '../helpers/roster';
import { atTime } from '../helpers/clock';

// Spec "Portal: contract, readiness, dashboard, billing": GET /b2b/dashboard, and "Limits" (30 days,
// 8 events). Links are inserted by SQL (the links issue's routes write them); the roster rows carry
// each person's latest link through the database trigger.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: fakeCompanyRuns(() => t.db) } });
});
afterAll(() => t.close());

type DashboardAnswer = z.infer<typeof DashboardResponse>;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const dashboard = async (token: string, lang?: string) => {
  const req = request(t.app).get('/b2b/dashboard').set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<DashboardAnswer>(await req);
};

const at = <T>(when: Date, body: () => Promise<T>) => atTime(t.clock, when, body);

describe('GET /b2b/dashboard', () => {
  it('answers a company that never minted a link: not launched, zero tiles, no activity, to the admin and a member', async () => {
    const admin = await rosterCaller(t);
    await insertPerson(t.db, admin.companyId, 'Staged Only');
    const member = await companyPerson(t, admin.companyId, 'member');
    for (const who of [admin, member]) {
      const res = await dashboard(who.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { hasLaunched: false, stats: { invitesSent30d: 0, activated: 0, pending: 0, failed: 0 }, activity: [] },
      });
    }
  });

  it('buckets each person by their latest link only; revoked, expired and never-linked persons match no tile', async () => {
    const admin = await rosterCaller(t);
    const now = t.clock().getTime();
    const companyId = admin.companyId;
    const p: Record<string, Person> = {};
    for (const name of [
      'reminted',
      'used',
      'failed',
      'revoked',
      'lazyExpired',
      'storedExpired',
      'never',
      'usedThenReminted',
      'liveExport',
    ]) {
      p[name] = await insertPerson(t.db, companyId, name);
    }
    const link = (who: string, status: string, ageMs: number, extra: Partial<LinkFixture> = {}) =>
      insertLink(t.db, { companyId, person: p[who], status, createdAt: new Date(now - ageMs), ...extra });
    await link('reminted', 'failed', 3 * HOUR); // delivery failed, then re-minted: pending, not failed
    await link('reminted', 'sent', HOUR);
    await link('used', 'revoked', 5 * HOUR);
    await link('used', 'used', 2 * HOUR, { usedAt: new Date(now - HOUR) });
    await link('failed', 'failed', HOUR);
    await link('revoked', 'used', 4 * HOUR, { usedAt: new Date(now - 3 * HOUR) }); // an older redemption does not count
    await link('revoked', 'revoked', HOUR);
    await link('lazyExpired', 'sent', 25 * HOUR); // still `sent`, past its expiry
    await link('storedExpired', 'expired', 30 * HOUR);
    await link('usedThenReminted', 'used', 10 * HOUR, { usedAt: new Date(now - 9 * HOUR) }); // abandoned seat, re-minted
    await link('usedThenReminted', 'exported', HOUR, { channel: 'export' });
    await link('liveExport', 'exported', 23 * HOUR, { channel: 'export' }); // an hour of life left
    const res = await dashboard(admin.token);
    expect(res.body.data.hasLaunched).toBe(true);
    expect(res.body.data.stats).toEqual({ invitesSent30d: 12, activated: 1, pending: 3, failed: 1 });
    // Two hours on, the 23-hour-old export is past its expiry (lazy expiry by the app's clock); the re-minted links are live.
    const later = await at(new Date(now + 2 * HOUR), () => dashboard(admin.token));
    expect(later.body.data.stats).toMatchObject({ activated: 1, pending: 2, failed: 1 });
  });

  it('counts links minted in the last 30 days by the app’s clock, of this company only', async () => {
    const admin = await rosterCaller(t);
    const other = await insertCompany(t.db, 'approved');
    const now = t.clock().getTime();
    const mine = await insertPerson(t.db, admin.companyId, 'Mine');
    const theirs = await insertPerson(t.db, other, 'Theirs');
    const link = (who: Person, companyId: string, ageMs: number, channel: LinkFixture['channel'] = 'email') =>
      insertLink(t.db, { companyId, person: who, status: 'revoked', channel, createdAt: new Date(now - ageMs) });
    await link(mine, admin.companyId, 30 * DAY + 1); // just outside the window
    expect((await dashboard(admin.token)).body.data).toMatchObject({ hasLaunched: true, stats: { invitesSent30d: 0 } });
    await link(mine, admin.companyId, 30 * DAY - 1);
    await link(mine, admin.companyId, DAY, 'export');
    await link(mine, admin.companyId, 0, 'sms');
    await link(mine, admin.companyId, -MINUTE); // after the clock's now: not minted yet as far as the app knows
    await link(theirs, other, DAY);
    expect((await dashboard(admin.token)).body.data.stats.invitesSent30d).toBe(3);
    // A day on, the oldest one left the window and the future one entered it.
    const dayLater = await at(new Date(now + DAY), () => dashboard(admin.token));
    expect(dayLater.body.data.stats.invitesSent30d).toBe(3);
  });

  it('lists the 8 most recent link events, newest first, with the person’s name and no identity data', async () => {
    const admin = await rosterCaller(t);
    const names = ['Amal', 'Basim', 'Cyrine', 'Dalia', 'Emad', 'Farah', 'Ghada'];
    const staged = await stage(
      t,
      admin.token,
      names.map((name) => person({ name })),
    );
    expect(staged.body.data).toMatchObject({ staged: names.length });
    const rows = await t.db.query<{ id: string; user_id: string; name: string }>(
      `select r.id, r.user_id, u.name from roster_entries r join users u on u.id = r.user_id where r.company_id = $1`,
      [admin.companyId],
    );
    const who = (name: string): Person => {
      const row = rows.find((r) => r.name === name)!;
      return { rosterEntryId: row.id, userId: row.user_id };
    };
    const now = t.clock().getTime();
    const ago = (ms: number) => new Date(now - ms);
    const link = (name: string, f: Omit<LinkFixture, 'companyId' | 'person'>) =>
      insertLink(t.db, { companyId: admin.companyId, person: who(name), ...f });
    await link('Amal', { status: 'used', channel: 'email', createdAt: ago(10 * HOUR), usedAt: ago(3 * HOUR), updatedAt: ago(3 * HOUR) });
    await link('Basim', { status: 'exported', channel: 'export', createdAt: ago(8 * HOUR), expiresAt: ago(HOUR) });
    await link('Cyrine', { status: 'failed', channel: 'sms', createdAt: ago(7 * HOUR), updatedAt: ago(7 * HOUR - MINUTE) });
    await link('Dalia', { status: 'revoked', channel: 'email_sms', createdAt: ago(6 * HOUR), updatedAt: ago(2 * HOUR) });
    await link('Emad', { status: 'issued', channel: null, createdAt: ago(5 * HOUR) });
    await link('Farah', { status: 'sent', channel: 'email', createdAt: ago(30 * MINUTE) });
    await link('Ghada', { status: 'expired', channel: 'email', createdAt: ago(20 * HOUR), expiresAt: ago(12 * HOUR) });
    await link('Ghada', { status: 'sent', channel: 'email', createdAt: new Date(now + HOUR) }); // not yet, by the app's clock
    const res = await dashboard(admin.token, 'ar');
    const event = (kind: string, personName: string, ms: number) => ({ kind, personName, at: ago(ms).toISOString() });
    expect(res.body.data.activity).toEqual([
      event('link_sent', 'Farah', 30 * MINUTE),
      event('link_expired', 'Basim', HOUR),
      event('link_revoked', 'Dalia', 2 * HOUR),
      event('link_used', 'Amal', 3 * HOUR),
      event('link_issued', 'Emad', 5 * HOUR),
      event('link_sent', 'Dalia', 6 * HOUR),
      event('link_failed', 'Cyrine', 7 * HOUR - MINUTE),
      event('link_sent', 'Cyrine', 7 * HOUR),
    ]);
    // No phone, e-mail, identity type or id of any kind anywhere in the answer.
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/@|\+44|resident|citizen|visitor|identity/i);
    for (const r of rows) expect(text).not.toContain(r.user_id);
    for (const r of rows) expect(text).not.toContain(r.id);
    // Emad's link expires 24 hours after its mint: then its expiry is the newest event (lazy expiry by the clock).
    const later = await at(new Date(now + 19 * HOUR + MINUTE), () => dashboard(admin.token));
    expect(later.body.data.activity.slice(0, 3)).toEqual([
      event('link_expired', 'Emad', -19 * HOUR),
      event('link_sent', 'Ghada', -HOUR),
      event('link_sent', 'Farah', 30 * MINUTE),
    ]);
  });
});

describe('dashboard guards', () => {
  it.each([
    ['pending', 'COMPANY_NOT_APPROVED'],
    ['suspended', 'COMPANY_SUSPENDED'],
    ['rejected', 'COMPANY_REJECTED'],
  ] as const)('refuses a %s company with %s, in English and Arabic', async (status, code) => {
    for (const role of ['admin', 'member'] as const) {
      const caller = await rosterCaller(t, status, role);
      for (const lang of ['en', 'ar'] as const) {
        const res = await dashboard(caller.token, lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, code, errorCodes[code][lang]]);
      }
    }
  });

  it('refuses an end user and a b2b_admin without a company with AUTH_FORBIDDEN, and no session with AUTH_REQUIRED', async () => {
    for (const role of ['end_user', 'b2b_admin'] as const) {
      const caller = await signInAs(t, role);
      for (const lang of ['en', 'ar'] as const) {
        const res = await dashboard(caller.token, lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN[lang]]);
      }
    }
    const anonymous = await request(t.app).get('/b2b/dashboard');
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});
