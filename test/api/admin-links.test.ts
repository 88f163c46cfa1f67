import request from 'supertest';
import type { z } from 'zod';
import { maskEmail, maskPhone } from '../../src/admin-links/mask';
import { createAdminLinkReads } from '../../src/admin-links/reads';
import type { AdminLinkList } from '../../src/admin-links/schemas';
import type { LinkChannel, LinkStatus } from '../../src/entities';
import { errorCodes } from '../../src/http/error-codes';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { insertLink, insertManyLinks } from '../helpers/admin-links-fixtures';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { signInAs, type Caller } from '../helpers/company-routes';
import { errorOf, typed } from '../helpers/responses';
import { person, recordingRuns, rosterCaller, stage } from '../helpers/roster';

// GET /admin/links and GET /admin/links/export (spec "Admin: links", "Link and roster status": lazy expiry).
let t: TestApp;
let staff: Caller;
const { runs, signalSender } = recordingRuns(() => t.db);
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs, signalSender } });
  staff = await signInAs(t, 'admin', { view: ['b2b'] });
});
afterAll(() => t.close());
// The stats span every company's links: each test starts from an empty table.
beforeEach(() => t.db.query('delete from invitation_links'));

type ListBody = z.infer<typeof AdminLinkList>;
const list = async (query: Record<string, string> = {}, token = staff.token, lang?: string) => {
  const req = request(t.app).get('/admin/links').query(query).set(bearer(token));
  if (lang) req.set('Accept-Language', lang);
  return typed<ListBody>(await req);
};
const exportCsv = (query: Record<string, string> = {}) =>
  request(t.app).get('/admin/links/export').query(query).set(bearer(staff.token)).buffer(true);

const HOUR = 3_600_000;
const at = (hours: number) => new Date(t.clock().getTime() + hours * HOUR);
const BULLETS = '•••••';
const cipher = () => createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);

/** A company named `companyName` with people staged through the portal route (contacts encrypted as in production). */
async function companyWith(companyName: string, people: Record<string, unknown>[]) {
  const admin = await rosterCaller(t);
  await t.db.query('update companies set name = $2 where id = $1', [admin.companyId, companyName]);
  const res = await stage(t, admin.token, people);
  if (res.body.data.staged !== people.length) throw new Error(`not staged: ${JSON.stringify(res.body)}`);
  const rows = await t.db.query<{ user_id: string; name: string }>(
    'select r.user_id, u.name from roster_entries r join users u on u.id = r.user_id where r.company_id = $1',
    [admin.companyId],
  );
  return { companyId: admin.companyId, users: Object.fromEntries(rows.map((r) => [r.name, r.user_id])) };
}

/** Links minted an hour apart from 19 hours ago in call order within a test (the last is the newest), each live for 24 hours unless given. */
let minted = -20;
beforeEach(() => {
  minted = -20;
});
function linker(company: { companyId: string; users: Record<string, string> }) {
  return (name: string, status: LinkStatus, channel: LinkChannel | null = 'email', expiresAt?: Date) => {
    minted += 1;
    return insertLink(t.db, {
      userId: company.users[name],
      companyId: company.companyId,
      status,
      channel,
      createdAt: at(minted),
      expiresAt: expiresAt ?? at(minted + 24),
      updatedAt: at(minted + 0.5),
    });
  };
}

describe('GET /admin/links', () => {
  it('shows each link with its masked destination by channel, newest first, and never a token or hash', async () => {
    const mail = person({ name: 'Mail Person', email: 'amira.long.local.part@mail.example' });
    const sms = person({ name: 'Sms Person' });
    const both = person({ name: 'Both Person', email: 'bo.th.local@both.example' });
    const exported = person({ name: 'Export Person' });
    const legacy = person({ name: 'Legacy Person' });
    const company = await companyWith('Falcon Logistics', [mail, sms, both, exported, legacy]);
    const link = linker(company);
    const ids = {
      legacy: await link('Legacy Person', 'issued', null),
      exported: await link('Export Person', 'exported', 'export'),
      both: await link('Both Person', 'sent', 'email_sms'),
      sms: await link('Sms Person', 'failed', 'sms'),
      mail: await link('Mail Person', 'sent', 'email'),
    };

    const res = await list();
    expect(res.status).toBe(200);
    const { links, total, page, limit } = res.body.data;
    expect([total, page, limit]).toEqual([5, 1, 20]);
    expect(links.map((l) => l.id)).toEqual([ids.mail, ids.sms, ids.both, ids.exported, ids.legacy]);
    expect(links[0]).toEqual({
      id: ids.mail,
      personName: 'Mail Person',
      companyName: 'Falcon Logistics',
      channel: 'email',
      destination: `${BULLETS}@mail.example`,
      status: 'sent',
      expiresAt: at(-15 + 24).toISOString(),
      lastUpdate: at(-15 + 0.5).toISOString(),
    });
    const destinations = Object.fromEntries(links.map((l) => [l.personName, [l.channel, l.destination]]));
    expect(destinations).toEqual({
      'Mail Person': ['email', `${BULLETS}@mail.example`],
      'Sms Person': ['sms', `+447${BULLETS}${sms.phone.slice(-2)}`],
      'Both Person': ['email_sms', `${BULLETS}@both.example / +447${BULLETS}${both.phone.slice(-2)}`],
      'Export Person': ['export', 'company_channel'],
      'Legacy Person': [null, null],
    });
    // Nothing of the contacts but the masked parts, and no token hash, anywhere in the answer.
    const text = JSON.stringify(res.body);
    for (const p of [mail, sms, both, exported, legacy]) {
      expect(text).not.toContain(p.phone.slice(1, -2));
      expect(text).not.toContain(p.email.split('@')[0]);
    }
    const hashes = await t.db.query<{ token_hash: string }>('select token_hash from invitation_links');
    for (const { token_hash } of hashes) expect(text).not.toContain(token_hash);
  });

  it('filters by status with lazy expiry, and its stats count every company whatever the filters', async () => {
    const names = ['Issued', 'Sent', 'Exported', 'Used', 'Failed', 'Revoked', 'StoredExpired', 'LazyExpired', 'Old'];
    const company = await companyWith(
      'Status Co',
      names.map((name) => person({ name })),
    );
    const other = await companyWith('Other Co', [person({ name: 'Elsewhere' })]);
    const link = linker(company);
    await link('Old', 'used', 'email');
    // Minted more than 24 hours before now: out of sent24h.
    await t.db.query(`update invitation_links set created_at = $1`, [at(-30)]);
    await link('Issued', 'issued');
    await link('Sent', 'sent');
    await link('Exported', 'exported', 'export');
    await link('Used', 'used');
    await link('Failed', 'failed', 'sms');
    await link('Revoked', 'revoked');
    await link('StoredExpired', 'expired', 'email', at(-2));
    await link('LazyExpired', 'sent', 'email', at(-1));
    await linker(other)('Elsewhere', 'exported', 'export');

    const names_ = async (query: Record<string, string | undefined>) => {
      const res = await list({ ...query, limit: '100' });
      expect(res.body.data.total).toBe(res.body.data.links.length);
      return res.body.data.links.map((l) => l.personName).sort();
    };
    expect(await names_({ status: 'issued' })).toEqual(['Issued']);
    expect(await names_({ status: 'sent' })).toEqual(['Sent']);
    expect(await names_({ status: 'exported' })).toEqual(['Elsewhere', 'Exported']);
    expect(await names_({ status: 'used' })).toEqual(['Old', 'Used']);
    expect(await names_({ status: 'failed' })).toEqual(['Failed']);
    expect(await names_({ status: 'revoked' })).toEqual(['Revoked']);
    expect(await names_({ status: 'expired' })).toEqual(['LazyExpired', 'StoredExpired']);
    const lazy = (await list({ status: 'expired' })).body.data.links.find((l) => l.personName === 'LazyExpired');
    expect(lazy?.status).toBe('expired');

    const stats = { sent24h: 9, used: 2, exported: 2, pending: 4, failed: 1, expired: 2 };
    const queries: Record<string, string>[] = [
      {},
      { status: 'failed' },
      { search: 'Other' },
      { search: 'nobody at all' },
      { page: '3', limit: '1' },
    ];
    for (const query of queries) {
      expect((await list(query)).body.data.stats).toEqual(stats);
    }

    // Two days later every active link has run out, with nothing written: filters and stats follow.
    t.clock.advance(48 * HOUR);
    expect(await names_({ status: 'expired' })).toEqual(['Elsewhere', 'Exported', 'Issued', 'LazyExpired', 'Sent', 'StoredExpired']);
    expect(await names_({ status: 'issued' })).toEqual([]);
    expect(await names_({ status: 'exported' })).toEqual([]);
    expect((await list()).body.data.stats).toEqual({ sent24h: 0, used: 2, exported: 0, pending: 0, failed: 1, expired: 6 });
    const [{ count }] = await t.db.query<{ count: string }>(`select count(*) from invitation_links where status = 'expired'`);
    expect(count).toBe('1');
  });

  it('searches person and company names (case-insensitive substring, % literal) and pages newest first', async () => {
    const acme = await companyWith('Acme Trading', [person({ name: 'Nora Haddad' }), person({ name: 'Omar 100% Saleh' })]);
    const blue = await companyWith('Blue Nora Group', [person({ name: 'Zaid Ali' }), person({ name: 'Huda Karim' })]);
    const a = linker(acme);
    const b = linker(blue);
    const nora = await a('Nora Haddad', 'sent');
    const omar = await a('Omar 100% Saleh', 'sent');
    const zaid = await b('Zaid Ali', 'sent');
    const huda = await b('Huda Karim', 'used');

    const ids = async (query: Record<string, string>) => (await list(query)).body.data.links.map((l) => l.id);
    // `nora` matches a person in one company and a company's name in the other.
    expect(await ids({ search: '  NORA ' })).toEqual([huda, zaid, nora]);
    expect(await ids({ search: 'acme' })).toEqual([omar, nora]);
    expect(await ids({ search: '100%' })).toEqual([omar]);
    expect(await ids({ search: '0%' })).toEqual([omar]);
    expect(await ids({ search: '%' })).toEqual([omar]);
    expect(await ids({ search: 'N_ra' })).toEqual([]);
    expect(await ids({ search: '' })).toEqual([huda, zaid, omar, nora]);
    expect(await ids({ search: 'nora', status: 'used' })).toEqual([huda]);

    const page2 = await list({ page: '2', limit: '3' });
    expect([page2.body.data.links.map((l) => l.id), page2.body.data.total, page2.body.data.page, page2.body.data.limit]).toEqual([
      [nora],
      4,
      2,
      3,
    ]);
    const beyond = await list({ page: '3', limit: '3', search: 'nora' });
    expect([beyond.body.data.links, beyond.body.data.total]).toEqual([[], 3]);
  });

  it('answers a search the same whether it names the matching people and companies or tests names along the scan', async () => {
    const acme = await companyWith('Acme Nora Trading', [person({ name: 'Nora Haddad' }), person({ name: 'Omar 100% Saleh' })]);
    const blue = await companyWith('Blue Group', [person({ name: 'Nora Ali' }), person({ name: 'Huda Karim' })]);
    const [a, b] = [linker(acme), linker(blue)];
    await a('Nora Haddad', 'sent');
    await a('Omar 100% Saleh', 'exported', 'export', at(-1));
    await b('Nora Ali', 'used');
    await b('Huda Karim', 'failed');
    // namedMatchesMax 0: any match at all takes the scan; the route names up to 2,000 of each.
    const scanning = createAdminLinkReads({ db: t.db.sql, cipher: cipher(), clock: t.clock, namedMatchesMax: 0 });
    // `_` and `%` are literal: unescaped, `_` would match every name.
    const searches = ['nora', 'NORA ', 'acme', '100%', '_', 'huda', 'blue', 'nobody'];
    for (const search of searches) {
      for (const status of [undefined, 'expired', 'used'] as const) {
        const query = { search, ...(status ? { status } : {}) };
        const named = await list({ ...query, limit: '2' });
        expect(named.status).toBe(200);
        expect(await scanning.list({ ...query, page: 1, limit: 2 })).toEqual(named.body);
      }
    }
    const matched = async (search: string) => (await list({ search })).body.data.total;
    expect(await Promise.all(searches.map(matched))).toEqual([3, 3, 2, 1, 0, 1, 2, 0]);
  });
});

/** The CSV as lines of cells (no cell here holds a comma, quote or line break). */
const csvLines = (text: string) =>
  text
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split(','));

describe('GET /admin/links: tiles and totals from tallies', () => {
  /** What a count of every link gives at `now` (the tiles, the unfiltered total, each status filter's total). */
  async function counted(now: Date) {
    const [row] = await t.db.query<Record<string, string>>(
      `select count(*) filter (where created_at > $1::timestamptz - interval '24 hours' and created_at <= $1) as sent24h,
              count(*) filter (where status = 'used') as used,
              count(*) filter (where status = 'exported' and expires_at > $1) as exported,
              count(*) filter (where status in ('issued', 'sent', 'exported') and expires_at > $1) as pending,
              count(*) filter (where status = 'failed') as failed,
              count(*) filter (where status = 'expired' or (status in ('issued', 'sent', 'exported') and expires_at <= $1)) as expired,
              count(*) as total,
              count(*) filter (where status = 'issued' and expires_at > $1) as issued,
              count(*) filter (where status = 'sent' and expires_at > $1) as sent,
              count(*) filter (where status = 'revoked') as revoked
         from invitation_links`,
      [now],
    );
    const n = (k: string) => Number(row[k]);
    return {
      stats: {
        sent24h: n('sent24h'),
        used: n('used'),
        exported: n('exported'),
        pending: n('pending'),
        failed: n('failed'),
        expired: n('expired'),
      },
      totals: {
        all: n('total'),
        issued: n('issued'),
        sent: n('sent'),
        exported: n('exported'),
        used: n('used'),
        expired: n('expired'),
        failed: n('failed'),
        revoked: n('revoked'),
      },
    };
  }

  it('agrees with a count of every link at any moment, hour boundaries included, after concurrent writes', async () => {
    const company = await companyWith('Tally Co', [person({ name: 'Tally Person' })]);
    const userId = company.users['Tally Person'];
    // 300 links in one statement, minted 997 s apart from 30 hours before a whole hour, expiring 0 to 44 hours
    // (and a few milliseconds) after, in every status.
    const hour = new Date(Math.floor(t.clock().getTime() / HOUR) * HOUR);
    const from = new Date(hour.getTime() - 30 * HOUR);
    await t.db.query(
      `insert into invitation_links (token_hash, user_id, company_id, status, channel, expires_at, created_at, updated_at)
       select md5(random()::text || n), $1, $2,
              (array['issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'])[1 + n % 7], 'email',
              $3::timestamptz + make_interval(secs => n * 997) + make_interval(hours => (n % 5) * 11) + make_interval(secs => (n % 3) * 0.001),
              $3::timestamptz + make_interval(secs => n * 997), $3::timestamptz + make_interval(secs => n * 997)
         from generate_series(0, 299) n`,
      [userId, company.companyId, from],
    );
    // Writers at once, each in its own transaction of two statements on its own links (so only the tallies are
    // shared): statuses move, a mint's time and an expiry move, links go, a column the tallies ignore changes.
    const some = (residue: number) =>
      `(select id from invitation_links where ('x' || left(token_hash, 6))::bit(24)::int % 13 = ${residue})`;
    const write = async (statement: (links: string) => string, residue: number) => {
      const client = await t.db.pool.connect();
      try {
        await client.query('begin');
        await client.query(statement(some(residue)));
        await client.query('select pg_sleep(0.002)');
        await client.query(statement(some(residue + 6)));
        await client.query('commit');
      } finally {
        client.release();
      }
    };
    await Promise.all([
      write((links) => `update invitation_links set status = 'used' where id in ${links} and status in ('issued', 'sent', 'exported')`, 0),
      write((links) => `update invitation_links set created_at = created_at - interval '50 minutes' where id in ${links}`, 1),
      write((links) => `update invitation_links set expires_at = expires_at + interval '3 hours' where id in ${links}`, 2),
      write((links) => `delete from invitation_links where id in ${links}`, 3),
      write((links) => `update invitation_links set channel = 'sms' where id in ${links}`, 4),
      write((links) => `update invitation_links set status = 'revoked' where id in ${links} and status <> 'used'`, 5),
    ]);

    // And links on whole hours, minted and expiring exactly where a count splits between tallied hours and rows.
    for (const [created, expires, status] of [
      [-20, 2, 'sent'],
      [-5, -3, 'exported'],
      [-1, 0, 'issued'],
    ] as const) {
      const onHour = (h: number) => new Date(hour.getTime() + h * HOUR);
      await insertLink(t.db, {
        userId,
        companyId: company.companyId,
        status,
        channel: 'email',
        createdAt: onHour(created),
        expiresAt: onHour(expires),
      });
    }

    let now = hour;
    const reads = createAdminLinkReads({ db: t.db.sql, cipher: cipher(), clock: () => now });
    const links = await t.db.query<{ created_at: Date; expires_at: Date }>(
      `select created_at, expires_at from invitation_links order by (extract(epoch from created_at)::bigint % 3600 = 0) desc, id limit 20`,
    );
    const moments = [
      ...[-31, -30, -7, -1, 0, 1, 13, 24, 29, 45].flatMap((h) => [-1, 0, 1, 1_800_000].map((ms) => hour.getTime() + h * HOUR + ms)),
      // Each link's expiry and mint and the 24-hour window's end, and the half hours before them (the part hours' ends).
      ...links.flatMap((l) =>
        [l.expires_at.getTime(), l.created_at.getTime(), l.created_at.getTime() + 24 * HOUR].flatMap((ms) => [ms, ms - HOUR / 2]),
      ),
    ];
    for (const moment of moments) {
      now = new Date(moment);
      const want = await counted(now);
      const totals: Record<string, number> = {};
      let stats: unknown;
      for (const status of [undefined, ...(['issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'] as const)]) {
        const res = await reads.list({ ...(status ? { status } : {}), page: 1, limit: 1 });
        totals[status ?? 'all'] = res.data.total;
        stats = res.data.stats;
      }
      expect({ at: now.toISOString(), stats, totals }).toEqual({ at: now.toISOString(), ...want });
    }
  });
});

describe('GET /admin/links/export', () => {
  it('sends links.csv with the spec columns, masked, filtered, newest first, without X-Truncated', async () => {
    const sms = person({ name: 'Sms Person' });
    const company = await companyWith('Csv Co', [person({ name: 'Mail Person', email: 'x.y@csv.example' }), sms, person({ name: 'Gone' })]);
    const link = linker(company);
    await link('Gone', 'revoked');
    await link('Sms Person', 'failed', 'sms');
    await link('Mail Person', 'sent', 'email', at(-1));

    const res = await exportCsv();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=links.csv');
    expect(res.headers['x-truncated']).toBeUndefined();
    expect(csvLines(res.text)).toEqual([
      ['person', 'company', 'channel', 'destination', 'status', 'expires_at', 'last_update'],
      ['Mail Person', 'Csv Co', 'email', `${BULLETS}@csv.example`, 'expired', at(-1).toISOString(), at(-16.5).toISOString()],
      // A cell starting with `+` gets the formula guard's quote (src/http/csv.ts), as in people.csv.
      ['Sms Person', 'Csv Co', 'sms', `'+447${BULLETS}${sms.phone.slice(-2)}`, 'failed', at(6).toISOString(), at(-17.5).toISOString()],
      ['Gone', 'Csv Co', 'email', `${BULLETS}@staff.example`, 'revoked', at(5).toISOString(), at(-18.5).toISOString()],
    ]);

    const filtered = await exportCsv({ status: 'expired', search: 'mail' });
    expect(csvLines(filtered.text).map((cells) => cells[0])).toEqual(['person', 'Mail Person']);
    const none = await exportCsv({ status: 'used' });
    expect([none.status, csvLines(none.text)]).toEqual([
      200,
      [['person', 'company', 'channel', 'destination', 'status', 'expires_at', 'last_update']],
    ]);
  });

  it('stops at 5,000 rows and says X-Truncated: true only when rows were left out', async () => {
    const company = await companyWith('Bulk Co', [person({ name: 'Bulk Person' })]);
    const bulk = { userId: company.users['Bulk Person'], companyId: company.companyId, expiresAt: at(24) };
    await insertManyLinks(t.db, { ...bulk, count: 5000, newest: at(-1) });

    const exact = await exportCsv();
    expect(exact.status).toBe(200);
    expect(exact.headers['x-truncated']).toBeUndefined();
    expect(csvLines(exact.text)).toHaveLength(5001);

    // One more, the newest: 5,001 match, the oldest is left out.
    await insertLink(t.db, { ...bulk, status: 'issued', channel: 'export', createdAt: at(0), expiresAt: at(24) });
    const clipped = await exportCsv();
    expect(clipped.headers['x-truncated']).toBe('true');
    const lines = csvLines(clipped.text);
    expect(lines).toHaveLength(5001);
    expect(lines[1]).toEqual(['Bulk Person', 'Bulk Co', 'export', 'company_channel', 'issued', at(24).toISOString(), at(0).toISOString()]);
    expect(lines[5000][6]).toBe(new Date(at(-1).getTime() - 4998_000).toISOString());

    // A filter that leaves 5,000 or fewer is not clipped.
    const filtered = await exportCsv({ status: 'sent' });
    expect([filtered.headers['x-truncated'], csvLines(filtered.text).length]).toEqual([undefined, 5001]);
    expect((await list()).body.data.total).toBe(5001);
  });
});

describe('guards and errors', () => {
  it('admits b2b View and Manage staff and super_admin; refuses the rest, b2b_admin included, in both languages', async () => {
    const manage = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const root = await signInAs(t, 'super_admin');
    for (const who of [staff, manage, root]) {
      expect((await list({}, who.token)).status).toBe(200);
      expect((await request(t.app).get('/admin/links/export').set(bearer(who.token))).status).toBe(200);
    }
    const company = await rosterCaller(t);
    const noArea = await signInAs(t, 'admin', { view: ['esim'] });
    const support = await signInAs(t, 'support');
    for (const [i, who] of [company, noArea, support].entries()) {
      const lang = i % 2 === 0 ? 'ar' : 'en';
      for (const path of ['/admin/links', '/admin/links/export']) {
        const res = await request(t.app).get(path).set(bearer(who.token)).set('Accept-Language', lang);
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN[lang]]);
      }
    }
    for (const lang of ['en', 'ar'] as const) {
      const res = await request(t.app).get('/admin/links').set('Accept-Language', lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([401, 'AUTH_REQUIRED', errorCodes.AUTH_REQUIRED[lang]]);
    }
  });

  it.each([
    ['/admin/links', { status: 'pending' }, 'en'],
    ['/admin/links', { limit: '101' }, 'ar'],
    ['/admin/links', { page: '0' }, 'en'],
    ['/admin/links', { extra: '1' }, 'ar'],
    ['/admin/links/export', { page: '1' }, 'en'],
    ['/admin/links/export', { status: 'active' }, 'ar'],
  ] as const)('%s answers VALIDATION_ERROR for %j (%s)', async (path, query, lang) => {
    const res = await request(t.app).get(path).query(query).set(bearer(staff.token)).set('Accept-Language', lang);
    expect([res.status, errorCode(res), errorOf(res).message]).toEqual([400, 'VALIDATION_ERROR', errorCodes.VALIDATION_ERROR[lang]]);
  });
});

describe('masking rules', () => {
  it('hides the local part with five bullets and keeps a phone prefix only when enough stays hidden', () => {
    expect(maskEmail('a@x.example')).toBe(`${BULLETS}@x.example`);
    expect(maskEmail('very.long.local.part@x.example')).toBe(`${BULLETS}@x.example`);
    expect(maskPhone('+966512345678')).toBe(`+966${BULLETS}78`);
    expect(maskPhone('+1234567890')).toBe(`+123${BULLETS}90`);
    expect(maskPhone('+12345678')).toBe(`+${BULLETS}78`);
  });
});
