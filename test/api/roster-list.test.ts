import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import { errorCodes } from '../../src/http/error-codes';
import type { RosterList } from '../../src/roster/schemas';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { signInAs } from '../helpers/company-routes';
import { DEMO, insertActivation, seedCatalog } from '../helpers/read-app';
import { errorOf, typed } from '../helpers/responses';
import { person, recordingRuns, rosterCaller, stage } from '../helpers/roster';

// GET /b2b/roster and GET /b2b/roster/export (spec "Portal: roster", "Link and roster status").
let t: TestApp;
const { runs, signalSender } = recordingRuns(() => t.db);
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs, signalSender } });
  await seedCatalog(t);
});
afterAll(() => t.close());

type ListBody = z.infer<typeof RosterList>;
const list = async (token: string, query: Record<string, string> = {}, lang?: string) => {
  const req = request(t.app).get('/b2b/roster').query(query).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<ListBody>(await req);
};
const exportCsv = (token: string) => request(t.app).get('/b2b/roster/export').set(bearer(token)).buffer(true);

const HOUR = 3_600_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Entries by name, with ids; staged one request per person so the order is the call order. */
async function rosterOf(admin: { token: string; companyId: string }, people: Record<string, unknown>[]) {
  for (const p of people) {
    const res = await stage(t, admin.token, [p]);
    if (res.body.data.staged !== 1) throw new Error(`not staged: ${JSON.stringify(res.body)}`);
    t.clock.advance(1000);
  }
  const rows = await t.db.query<{ id: string; user_id: string; name: string }>(
    'select r.id, r.user_id, u.name from roster_entries r join users u on u.id = r.user_id where r.company_id = $1',
    [admin.companyId],
  );
  return Object.fromEntries(rows.map((r) => [r.name, { id: r.id, userId: r.user_id }]));
}

async function link(entry: { id: string; userId: string }, status: string, createdAt: Date, expiresAt: Date) {
  await t.db.query(
    `insert into invitation_links (token_hash, user_id, roster_entry_id, status, expires_at, created_at, updated_at)
     values (encode(sha256(gen_random_uuid()::text::bytea), 'hex'), $1, $2, $3, $4, $5, $5)`,
    [entry.userId, entry.id, status, expiresAt, createdAt],
  );
}

describe('GET /b2b/roster', () => {
  it('lists every field of each entry, newest first, contacts decrypted, paged with total', async () => {
    const admin = await rosterCaller(t);
    const a = person({ name: 'Alpha', email: null, nationality: null });
    const b = person({ name: 'Bravo', phone: null, identityType: 'visitor' });
    const c = person({ name: 'Charlie', identityType: 'citizen', nationality: 'Saudi Arabia' });
    const ids = await rosterOf(admin, [a, b, c]);

    const res = await list(admin.token);
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(3);
    expect([res.body.data.page, res.body.data.limit]).toEqual([1, 20]);
    expect(res.body.data.entries.map((e) => e.name)).toEqual(['Charlie', 'Bravo', 'Alpha']);
    const alpha = res.body.data.entries[2];
    expect([alpha.createdAt, alpha.updatedAt]).toEqual([expect.stringMatching(ISO), alpha.createdAt]);
    expect(alpha).toEqual({
      id: ids.Alpha.id,
      companyId: admin.companyId,
      userId: ids.Alpha.userId,
      nationality: null,
      status: 'staged',
      packageId: null,
      createdBy: admin.userId,
      createdAt: alpha.createdAt,
      updatedAt: alpha.createdAt,
      name: 'Alpha',
      phone: a.phone,
      email: null,
      identityType: 'resident',
      linkStatus: null,
      linkExpiresAt: null,
      linkCreatedAt: null,
      activated: false,
    });
    expect(res.body.data.entries[1]).toMatchObject({ phone: null, email: b.email, identityType: 'visitor' });
    expect(res.body.data.entries[0]).toMatchObject({ nationality: 'Saudi Arabia', identityType: 'citizen' });

    const page2 = await list(admin.token, { page: '2', limit: '2' });
    expect([page2.body.data.total, page2.body.data.page, page2.body.data.limit]).toEqual([3, 2, 2]);
    expect(page2.body.data.entries.map((e) => e.name)).toEqual(['Alpha']);
    const beyond = await list(admin.token, { page: '3', limit: '2' });
    expect([beyond.body.data.entries, beyond.body.data.total]).toEqual([[], 3]);
  });

  it("never shows another company's entries, and lets a member read", async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    await rosterOf(admin, [person({ name: 'Mine' })]);
    await rosterOf(other, [person({ name: 'Theirs' })]);
    const member = await signInAs(t, 'b2b_admin');
    await t.db.query(`insert into company_users (company_id, user_id, role, created_at) values ($1, $2, 'member', now())`, [
      admin.companyId,
      member.userId,
    ]);
    for (const token of [admin.token, member.token]) {
      const res = await list(token);
      expect(res.body.data.entries.map((e) => e.name)).toEqual(['Mine']);
    }
  });

  it('filters by roster status', async () => {
    const admin = await rosterCaller(t);
    const ids = await rosterOf(admin, [person({ name: 'S1' }), person({ name: 'E1' }), person({ name: 'S2' })]);
    await t.db.query(`update roster_entries set status = 'enabled' where id = $1`, [ids.E1.id]);
    expect((await list(admin.token, { status: 'enabled' })).body.data.entries.map((e) => e.name)).toEqual(['E1']);
    const staged = await list(admin.token, { status: 'staged' });
    expect([staged.body.data.entries.map((e) => e.name), staged.body.data.total]).toEqual([['S2', 'S1'], 2]);
  });

  it('reports and filters by the latest link, reading an active link past its expiry as expired', async () => {
    const admin = await rosterCaller(t);
    const names = ['None', 'Issued', 'Sent', 'Exported', 'Used', 'Failed', 'Revoked', 'StoredExpired', 'LazyExpired', 'Reminted'];
    const ids = await rosterOf(
      admin,
      names.map((name) => person({ name })),
    );
    const now = t.clock();
    const later = new Date(now.getTime() + 24 * HOUR);
    const earlier = new Date(now.getTime() - HOUR);
    const ago = (h: number) => new Date(now.getTime() - h * HOUR);
    await link(ids.Issued, 'issued', ago(1), later);
    await link(ids.Sent, 'sent', ago(1), later);
    await link(ids.Exported, 'exported', ago(1), later);
    await link(ids.Used, 'used', ago(30), ago(6));
    await link(ids.Failed, 'failed', ago(1), later);
    await link(ids.Revoked, 'revoked', ago(1), later);
    await link(ids.StoredExpired, 'expired', ago(30), ago(6));
    await link(ids.LazyExpired, 'sent', ago(25), earlier);
    // Re-minted: the mint revoked the older link; the newest (issued) is the one that counts.
    await link(ids.Reminted, 'revoked', ago(3), later);
    await link(ids.Reminted, 'issued', ago(2), later);

    const all = await list(admin.token, { limit: '100' });
    const byName = Object.fromEntries(all.body.data.entries.map((e) => [e.name, e]));
    expect(byName.None).toMatchObject({ linkStatus: null, linkExpiresAt: null, linkCreatedAt: null });
    expect(byName.Issued).toMatchObject({ linkStatus: 'issued', linkExpiresAt: later.toISOString(), linkCreatedAt: ago(1).toISOString() });
    expect(byName.LazyExpired).toMatchObject({ linkStatus: 'expired', linkExpiresAt: earlier.toISOString() });
    expect(byName.Reminted).toMatchObject({ linkStatus: 'issued', linkCreatedAt: ago(2).toISOString() });

    const filtered = async (linkStatus: string) => {
      const res = await list(admin.token, { linkStatus, limit: '100' });
      expect(res.body.data.total).toBe(res.body.data.entries.length);
      return res.body.data.entries.map((e) => e.name).sort();
    };
    expect(await filtered('none')).toEqual(['None']);
    expect(await filtered('issued')).toEqual(['Issued', 'Reminted']);
    expect(await filtered('sent')).toEqual(['Sent']);
    expect(await filtered('exported')).toEqual(['Exported']);
    expect(await filtered('used')).toEqual(['Used']);
    expect(await filtered('failed')).toEqual(['Failed']);
    expect(await filtered('revoked')).toEqual(['Revoked']);
    expect(await filtered('expired')).toEqual(['LazyExpired', 'StoredExpired']);

    // A day later every active link has run out: lazy expiry moves them without any write.
    t.clock.advance(25 * HOUR);
    expect(await filtered('expired')).toEqual(['Exported', 'Issued', 'LazyExpired', 'Reminted', 'Sent', 'StoredExpired']);
    expect(await filtered('issued')).toEqual([]);
    // Combined with the roster status, and paged: total counts the filtered rows.
    await t.db.query(`update roster_entries set status = 'enabled' where id = $1`, [ids.Issued.id]);
    const combined = await list(admin.token, { linkStatus: 'expired', status: 'enabled' });
    expect([combined.body.data.entries.map((e) => e.name), combined.body.data.total]).toEqual([['Issued'], 1]);
    const paged = await list(admin.token, { linkStatus: 'expired', limit: '4', page: '2' });
    expect([paged.body.data.entries.length, paged.body.data.total]).toEqual([2, 6]);
  });

  it("reports activated from the person's latest activation, not from links", async () => {
    const admin = await rosterCaller(t);
    const ids = await rosterOf(admin, [person({ name: 'Done' }), person({ name: 'Retried' }), person({ name: 'Linked' })]);
    await insertActivation(t, { userId: ids.Done.userId, status: 'failed', createdAt: '2026-01-01T00:00:00Z' });
    await insertActivation(t, { userId: ids.Done.userId, status: 'activated', createdAt: '2026-01-02T00:00:00Z' });
    await insertActivation(t, { userId: ids.Retried.userId, status: 'activated', createdAt: '2026-01-01T00:00:00Z' });
    await insertActivation(t, { userId: ids.Retried.userId, status: 'pending', createdAt: '2026-01-02T00:00:00Z' });
    await link(ids.Linked, 'used', new Date(), new Date(Date.now() + HOUR));
    const entries = (await list(admin.token)).body.data.entries;
    expect(Object.fromEntries(entries.map((e) => [e.name, e.activated]))).toEqual({ Done: true, Retried: false, Linked: false });
  });

  it('finds one entry by its exact phone or e-mail (trimmed, e-mail in any case), through the keyed hashes', async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    const a = person({ name: 'Phone' });
    const b = person({ name: 'Mail', email: 'Mail.Person@Staff.Example' });
    await rosterOf(admin, [a, b, person()]);
    const theirs = person({ name: 'Theirs' });
    await rosterOf(other, [theirs]);
    const names = async (search: string) => (await list(admin.token, { search })).body.data.entries.map((e) => e.name);
    expect(await names(a.phone)).toEqual(['Phone']);
    expect(await names(`  ${a.phone} `)).toEqual(['Phone']);
    expect(await names(a.email)).toEqual(['Phone']);
    expect(await names('MAIL.person@staff.example')).toEqual(['Mail']);
    expect(await names(a.phone.slice(0, -1))).toEqual([]);
    expect(await names(theirs.phone)).toEqual([]);
    expect(await names('   ')).toHaveLength(3);
    const found = await list(admin.token, { search: b.email, status: 'staged' });
    expect([found.body.data.total, found.body.data.entries[0].email]).toEqual([1, 'mail.person@staff.example']);
  });

  it.each([
    [{ page: '0' }],
    [{ limit: '0' }],
    [{ limit: '101' }],
    [{ status: 'archived' }],
    [{ linkStatus: 'pending' }],
    [{ search: 'x'.repeat(255) }],
    [{ companyId: randomUUID() }],
  ])('answers VALIDATION_ERROR for %j', async (query) => {
    const admin = await rosterCaller(t);
    const res = await list(admin.token, query, 'ar');
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([400, 'VALIDATION_ERROR', errorCodes.VALIDATION_ERROR.ar]);
  });

  it('refuses callers without an approved company, with the spec codes in both languages', async () => {
    expect((await request(t.app).get('/b2b/roster')).status).toBe(401);
    const staff = await signInAs(t, 'super_admin');
    const lonely = await signInAs(t, 'b2b_admin');
    for (const token of [staff.token, lonely.token]) {
      const res = await list(token);
      expect([res.status, errorCode(res)]).toEqual([403, 'AUTH_FORBIDDEN']);
    }
    for (const [status, code] of [
      ['pending', 'COMPANY_NOT_APPROVED'],
      ['suspended', 'COMPANY_SUSPENDED'],
      ['rejected', 'COMPANY_REJECTED'],
    ] as const) {
      const member = await rosterCaller(t, status, 'member');
      for (const path of ['/b2b/roster', '/b2b/roster/export']) {
        const ar = await request(t.app).get(path).set(bearer(member.token)).set('Accept-Language', 'ar');
        expect([ar.status, errorCode(ar), errorOf(ar).message]).toEqual([403, code, errorCodes[code].ar]);
        const en = await request(t.app).get(path).set(bearer(member.token));
        expect(errorOf(en).message).toBe(errorCodes[code].en);
      }
    }
  });
});

describe('GET /b2b/roster/export', () => {
  it('sends people.csv with exactly the spec columns, unmasked contacts, the package name after mint, and audits the count', async () => {
    const admin = await rosterCaller(t);
    const plusMail = `+${randomUUID().slice(0, 8)}@staff.example`;
    const ids = await rosterOf(admin, [
      person({ name: 'Plus mail', phone: null, email: plusMail, nationality: null }),
      person({ name: 'By phone', email: null, nationality: null }),
      person({ name: '=HYPERLINK("x")', phone: null, email: 'Formula@Staff.Example', identityType: 'visitor', nationality: null }),
      person({ name: 'Minted, "quoted"', identityType: 'citizen', nationality: 'Saudi Arabia' }),
    ]);
    const phone = (await list(admin.token, { limit: '100' })).body.data.entries.find((e) => e.name === 'By phone')!.phone;
    const minted = ids['Minted, "quoted"'];
    await t.db.query('update roster_entries set package_id = $2 where id = $1', [minted.id, DEMO.packages.starter]);
    const expires = new Date(t.clock().getTime() + HOUR);
    const created = new Date(t.clock().getTime() - HOUR);
    await link(minted, 'sent', created, expires);
    const [pkg] = await t.db.query<{ name_en: string }>('select name_en from packages where id = $1', [DEMO.packages.starter]);
    const entries = (await list(admin.token, { limit: '100' })).body.data.entries;
    const createdAt = Object.fromEntries(entries.map((e) => [e.name, e.createdAt]));

    const res = await exportCsv(admin.token).set('User-Agent', 'roster-test');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=people.csv');
    const withEmail = entries.find((e) => e.name === 'Minted, "quoted"')!;
    expect(res.text).toBe(
      [
        'name,contact,identity_type,nationality,roster_status,link_status,link_expires_at,package,created_at',
        `"Minted, ""quoted""",${withEmail.email},citizen,Saudi Arabia,staged,sent,${expires.toISOString()},${pkg.name_en},${createdAt['Minted, "quoted"']}`,
        `"'=HYPERLINK(""x"")",formula@staff.example,visitor,,staged,,,,${createdAt['=HYPERLINK("x")']}`,
        // "contact is the unmasked e-mail or phone": a bare E.164 number is no formula, so it has no quote.
        `By phone,${phone},resident,,staged,,,,${createdAt['By phone']}`,
        `Plus mail,${plusMail},resident,,staged,,,,${createdAt['Plus mail']}`,
        '',
      ].join('\r\n'),
    );
    expect(res.text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    const audits = await t.db.query<Record<string, unknown>>(
      `select action, actor_user_id, company_id, entity_type, details, user_agent from audit_events where company_id = $1`,
      [admin.companyId],
    );
    expect(audits).toEqual([
      {
        action: 'company.roster_export',
        actor_user_id: admin.userId,
        company_id: admin.companyId,
        entity_type: 'roster',
        details: { count: 4 },
        user_agent: 'roster-test',
      },
    ]);
  });

  it('sends only the header for an empty roster, to a member too', async () => {
    const admin = await rosterCaller(t);
    const member = await signInAs(t, 'b2b_admin');
    await t.db.query(`insert into company_users (company_id, user_id, role, created_at) values ($1, $2, 'member', now())`, [
      admin.companyId,
      member.userId,
    ]);
    const res = await exportCsv(member.token);
    expect([res.status, res.text]).toEqual([
      200,
      'name,contact,identity_type,nationality,roster_status,link_status,link_expires_at,package,created_at\r\n',
    ]);
  });
});
