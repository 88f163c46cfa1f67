import { Client } from 'pg';
import request from 'supertest';
import { errorCodes, itemCodes, type ItemCode } from '../../src/http/error-codes';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, errorCode, eventually, signUp, type TestApp } from '../helpers/app';
import { signInAs } from '../helpers/company-routes';
import { errorOf } from '../helpers/responses';
import { person, recordingRuns, rosterCaller, stage } from '../helpers/roster';
import { untilWaitingOnLock } from '../helpers/db';

// POST /b2b/roster/stage (spec "Portal: roster"): 1-500 rows, each checked on its own, partial accept.
let t: TestApp;
const { runs, readiness, signalSender, state } = recordingRuns(() => t.db);
beforeAll(async () => {
  t = await createTestApp({ deps: { companyRuns: runs, signalSender } });
});
afterAll(() => t.close());

/** The stage's readiness signal is sent after the answer: wait until every one of the company's went. */
const signalsSent = (companyId: string) =>
  eventually(async () => {
    const waiting = await t.db.query(`select 1 from workflow_signals where workflow_id = $1 and delivered_at is null`, [
      `company:${companyId}`,
    ]);
    expect(waiting).toEqual([]);
  }, 5_000);

const cipher = () => createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
const rejection = (rowNumber: number, field: string, code: ItemCode) => ({
  rowNumber,
  field,
  code,
  messageEn: itemCodes[code].en,
  messageAr: itemCodes[code].ar,
});
const rosterCount = async (companyId: string) =>
  (await t.db.query<{ n: number }>('select count(*)::int as n from roster_entries where company_id = $1', [companyId]))[0].n;

describe('POST /b2b/roster/stage: staging', () => {
  it('answers without waiting on the company run: a readiness signal Temporal never takes holds nothing up', async () => {
    const admin = await rosterCaller(t);
    state.hold = true;
    const asked = state.asked;
    try {
      const late = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the stage request waited on the run')), 3_000).unref(),
      );
      const res = await Promise.race([stage(t, admin.token, [person()]), late]);
      expect([res.status, res.body.data.staged]).toEqual([200, 1]);
      await eventually(() => expect(state.asked - asked).toBe(1), 2_000);
      // Written with the staged rows: the worker's relay delivers it if this attempt never does.
      const [pending] = await t.db.query<{ signal: string; args: object }>(
        `select signal, args from workflow_signals where workflow_id = $1 order by id desc limit 1`,
        [`company:${admin.companyId}`],
      );
      expect(pending).toEqual({ signal: 'readinessChanged', args: { gate: 'rosterStaged' } });
    } finally {
      state.hold = false;
    }
  });

  it('creates an end-user account (contact encrypted, keyed hashes) and a staged entry per row, then signals readiness once', async () => {
    const admin = await rosterCaller(t);
    const a = person({ name: '  Sara Ali  ', email: ' Sara.Ali@Staff.Example ', nationality: '  Egypt ' });
    const b = person({ email: null, identityType: 'visitor', nationality: '' });
    const c = person({ phone: '', identityType: 'citizen' });
    delete (c as Record<string, unknown>).nationality;
    readiness.length = 0;

    const res = await stage(t, admin.token, [a, b, c]);
    expect([res.status, res.body]).toEqual([200, { data: { staged: 3, rejected: [] } }]);
    await signalsSent(admin.companyId);
    expect(readiness).toEqual([{ companyId: admin.companyId, gate: 'rosterStaged' }]);

    const rows = await t.db.query<Record<string, unknown>>(
      `select u.name, u.app_role, u.identity_type, u.is_active, u.verified_at, u.phone_encrypted, u.phone_hash, u.email_encrypted,
              u.email_hash, r.company_id, r.status, r.nationality, r.created_by, r.package_id, r.unit_price_halalas, r.link_status
         from roster_entries r join users u on u.id = r.user_id where r.company_id = $1 order by r.created_at`,
      [admin.companyId],
    );
    const c0 = cipher();
    const common = {
      app_role: 'end_user',
      is_active: true,
      verified_at: null,
      company_id: admin.companyId,
      status: 'staged',
      created_by: admin.userId,
      package_id: null,
      unit_price_halalas: null,
      link_status: null,
    };
    expect(rows).toEqual([
      expect.objectContaining({
        ...common,
        name: 'Sara Ali',
        identity_type: 'resident',
        nationality: 'Egypt',
        phone_hash: c0.lookupHash(a.phone),
        email_hash: c0.lookupHash('sara.ali@staff.example'),
      }),
      expect.objectContaining({ ...common, identity_type: 'visitor', nationality: null, email_hash: null, email_encrypted: null }),
      expect.objectContaining({ ...common, identity_type: 'citizen', nationality: null, phone_hash: null, phone_encrypted: null }),
    ]);
    expect(c0.decrypt(rows[0].phone_encrypted as string)).toBe(a.phone);
    expect(c0.decrypt(rows[0].email_encrypted as string)).toBe('sara.ali@staff.example');
    expect(rows[0].phone_encrypted).not.toContain(a.phone.slice(1));
  });

  it('accepts any country, at exactly 500 rows, and 255-character names and 100-character nationalities', async () => {
    const admin = await rosterCaller(t);
    const rows = Array.from({ length: 500 }, (_, i) => person(i === 0 ? { name: 'n'.repeat(255), nationality: 'x'.repeat(100) } : {}));
    rows[1] = person({ phone: '+12025550123', email: null });
    rows[2] = person({ phone: '+8613800138000' });
    const res = await stage(t, admin.token, rows);
    expect([res.status, res.body.data.staged, res.body.data.rejected]).toEqual([200, 500, []]);
    expect(await rosterCount(admin.companyId)).toBe(500);
  });

  it('writes the accounts and the entries in one statement each, whatever the batch size', async () => {
    const admin = await rosterCaller(t);
    const statements: string[] = [];
    // The prototype of the app's own pg clients (the ORM may load its own copy of pg).
    const probe = await t.db.pool.connect();
    const proto = Object.getPrototypeOf(probe) as Client;
    probe.release();
    // A spy calls through: every statement still runs, and its text is recorded.
    const spy = jest.spyOn(proto, 'query');
    try {
      const res = await stage(
        t,
        admin.token,
        Array.from({ length: 300 }, () => person()),
      );
      expect(res.body.data.staged).toBe(300);
      for (const [first] of spy.mock.calls as unknown[][]) {
        const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
        if (text) statements.push(text.replace(/\s+/g, ' ').trim());
      }
    } finally {
      spy.mockRestore();
    }
    expect(statements.filter((s) => s.startsWith('insert into users'))).toHaveLength(1);
    expect(statements.filter((s) => s.startsWith('insert into roster_entries'))).toHaveLength(1);
    // The whole request (session, membership, rate limit, transaction) stays a handful of round trips.
    expect(statements.length).toBeLessThan(15);
  });
});

describe('POST /b2b/roster/stage: row rules', () => {
  it('rejects each bad row with its code and field, both languages, sorted by row number, and stages the rest', async () => {
    const admin = await rosterCaller(t);
    const good = person();
    const dupe = person();
    const rows: unknown[] = [
      null, // 1
      'Sara, +966500000000', // 2
      [good.name], // 3
      person({ name: undefined }), // 4
      person({ name: '   ' }), // 5
      person({ name: 'n'.repeat(256) }), // 6
      person({ name: 42 }), // 7
      person({ phone: '0501234567' }), // 8
      person({ phone: '+0123456789' }), // 9
      person({ phone: 966501234567 }), // 10
      person({ email: 'not-an-email' }), // 11
      person({ email: `${'a'.repeat(250)}@x.io` }), // 12
      person({ phone: null, email: null }), // 13
      person({ phone: '  ', email: '' }), // 14
      person({ identityType: 'tourist' }), // 15
      person({ identityType: undefined }), // 16
      person({ nationality: 'x'.repeat(101) }), // 17
      person({ nationality: 7 }), // 18
      good, // 19
      dupe, // 20
      person({ phone: good.phone }), // 21: same phone as row 19
      person({ email: dupe.email.toUpperCase() }), // 22: same e-mail as row 20, other case
      person({ name: '', phone: 'x', identityType: 'alien' }), // 23: three problems
      person({ idNumber: '1098765430', extra: true }), // 24: unknown fields are ignored
      5, // 25
    ];
    const res = await stage(t, admin.token, rows, 'ar');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      staged: 3,
      rejected: [
        rejection(1, 'row', 'ROSTER_ROW_INVALID_NAME'),
        rejection(2, 'row', 'ROSTER_ROW_INVALID_NAME'),
        rejection(3, 'row', 'ROSTER_ROW_INVALID_NAME'),
        rejection(4, 'name', 'ROSTER_ROW_INVALID_NAME'),
        rejection(5, 'name', 'ROSTER_ROW_INVALID_NAME'),
        rejection(6, 'name', 'ROSTER_ROW_INVALID_NAME'),
        rejection(7, 'name', 'ROSTER_ROW_INVALID_NAME'),
        rejection(8, 'phone', 'ROSTER_ROW_INVALID_PHONE'),
        rejection(9, 'phone', 'ROSTER_ROW_INVALID_PHONE'),
        rejection(10, 'phone', 'ROSTER_ROW_INVALID_PHONE'),
        rejection(11, 'email', 'ROSTER_ROW_INVALID_EMAIL'),
        rejection(12, 'email', 'ROSTER_ROW_INVALID_EMAIL'),
        rejection(13, 'contact', 'ROSTER_ROW_MISSING_CONTACT'),
        rejection(14, 'contact', 'ROSTER_ROW_MISSING_CONTACT'),
        rejection(15, 'identityType', 'ROSTER_ROW_INVALID_IDENTITY_TYPE'),
        rejection(16, 'identityType', 'ROSTER_ROW_INVALID_IDENTITY_TYPE'),
        rejection(17, 'nationality', 'ROSTER_ROW_INVALID_NATIONALITY'),
        rejection(18, 'nationality', 'ROSTER_ROW_INVALID_NATIONALITY'),
        rejection(21, 'phone', 'ROSTER_ROW_DUPLICATE_IN_BATCH'),
        rejection(22, 'email', 'ROSTER_ROW_DUPLICATE_IN_BATCH'),
        rejection(23, 'name', 'ROSTER_ROW_INVALID_NAME'),
        rejection(23, 'phone', 'ROSTER_ROW_INVALID_PHONE'),
        rejection(23, 'identityType', 'ROSTER_ROW_INVALID_IDENTITY_TYPE'),
        rejection(25, 'row', 'ROSTER_ROW_INVALID_NAME'),
      ],
    });
    expect(await rosterCount(admin.companyId)).toBe(3);
    const [stored] = await t.db.query<Record<string, unknown>>(
      `select * from users u join roster_entries r on r.user_id = u.id where r.company_id = $1 and u.name = $2`,
      [admin.companyId, (rows[23] as { name: string }).name],
    );
    expect(JSON.stringify(stored)).not.toContain('1098765430');
  });

  it('is safe to upload again: every row already on this roster is ALREADY_ON_ROSTER and nothing is written or signalled', async () => {
    const admin = await rosterCaller(t);
    const file = [person(), person({ email: null }), person({ phone: null })];
    expect((await stage(t, admin.token, file)).body.data.staged).toBe(3);
    await signalsSent(admin.companyId);
    readiness.length = 0;
    const again = await stage(t, admin.token, [...file, person()]);
    expect(again.body.data).toEqual({
      staged: 1,
      rejected: [
        rejection(1, 'phone', 'ROSTER_ROW_ALREADY_ON_ROSTER'),
        rejection(2, 'phone', 'ROSTER_ROW_ALREADY_ON_ROSTER'),
        rejection(3, 'email', 'ROSTER_ROW_ALREADY_ON_ROSTER'),
      ],
    });
    await signalsSent(admin.companyId);
    expect(readiness).toHaveLength(1);
    readiness.length = 0;
    // Same person, contact written differently (e-mail case, spaces), and a row adding a new e-mail to a known phone.
    const third = await stage(t, admin.token, [
      { ...file[2], email: ` ${file[2].email.toUpperCase()} ` },
      { ...file[1], email: 'new.address@staff.example' },
    ]);
    expect(third.body.data).toEqual({
      staged: 0,
      rejected: [rejection(1, 'email', 'ROSTER_ROW_ALREADY_ON_ROSTER'), rejection(2, 'phone', 'ROSTER_ROW_ALREADY_ON_ROSTER')],
    });
    await signalsSent(admin.companyId);
    expect(readiness).toEqual([]);
    expect(await rosterCount(admin.companyId)).toBe(4);
  });

  it("answers CONTACT_EXISTS for a contact held by any other account: a consumer, another company's beneficiary, staff", async () => {
    const admin = await rosterCaller(t);
    const other = await rosterCaller(t);
    const theirs = person();
    await stage(t, other.token, [theirs]);
    const consumer = await signUp(t, { phone: '+966511110001' });
    const mailUser = await signUp(t, { email: 'known.person@example.com' });
    expect(mailUser.userId).toBeTruthy();
    const res = await stage(t, admin.token, [
      person({ phone: theirs.phone }),
      person({ email: theirs.email }),
      person({ phone: consumer.phone }),
      person({ phone: null, email: 'Known.Person@example.com' }),
      person({ phone: '+966500000009' }),
    ]);
    expect(res.body.data).toEqual({
      staged: 1,
      rejected: [
        rejection(1, 'phone', 'ROSTER_ROW_CONTACT_EXISTS'),
        rejection(2, 'email', 'ROSTER_ROW_CONTACT_EXISTS'),
        rejection(3, 'phone', 'ROSTER_ROW_CONTACT_EXISTS'),
        rejection(4, 'email', 'ROSTER_ROW_CONTACT_EXISTS'),
      ],
    });
    // The company admin's own phone is another account too.
    const [me] = await t.db.query<{ phone_encrypted: string }>('select phone_encrypted from users where id = $1', [admin.userId]);
    const mine = await stage(t, admin.token, [person({ phone: cipher().decrypt(me.phone_encrypted) })]);
    expect(mine.body.data.rejected).toEqual([rejection(1, 'phone', 'ROSTER_ROW_CONTACT_EXISTS')]);
  });

  it('classifies a contact taken while the request waited on it (the unique hash decides, the request does not fail)', async () => {
    const admin = await rosterCaller(t);
    const contested = person();
    const other = person();
    const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
    url.pathname = `/${t.db.name}`;
    const holder = new Client({ connectionString: url.toString() });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`insert into users (name, phone_hash, created_at, updated_at) values ('Sign-up', $1, now(), now())`, [
        cipher().lookupHash(contested.phone),
      ]);
      const pending = stage(t, admin.token, [other, contested]);
      // The request checked (nothing committed yet) and now waits on the uncommitted account's unique hash.
      await untilWaitingOnLock(t.db, '%insert into users%');
      await holder.query('commit');
      const res = await pending;
      expect(res.body.data).toEqual({ staged: 1, rejected: [rejection(2, 'phone', 'ROSTER_ROW_CONTACT_EXISTS')] });
    } finally {
      await holder.end();
    }
    expect(await rosterCount(admin.companyId)).toBe(1);
  });

  it('stages a contact once when two requests race on it (same company: ALREADY_ON_ROSTER; another company: CONTACT_EXISTS)', async () => {
    for (let round = 0; round < 5; round++) {
      const admin = await rosterCaller(t);
      const rival = await rosterCaller(t);
      const shared = Array.from({ length: 20 }, () => person());
      const [a, b, c] = await Promise.all([
        stage(t, admin.token, shared),
        stage(t, admin.token, [...shared].reverse()),
        stage(t, rival.token, shared),
      ]);
      for (const res of [a, b, c]) expect(res.status).toBe(200);
      expect(a.body.data.staged + b.body.data.staged + c.body.data.staged).toBe(20);
      const codes = [...a.body.data.rejected, ...b.body.data.rejected, ...c.body.data.rejected].map((r) => r.code);
      expect(codes).toHaveLength(40);
      // Each contact is staged once. Staged by our company: our other request says ALREADY_ON_ROSTER and the rival
      // CONTACT_EXISTS; staged by the rival: both of ours say CONTACT_EXISTS.
      const ours = a.body.data.staged + b.body.data.staged;
      expect(codes.filter((x) => x === 'ROSTER_ROW_ALREADY_ON_ROSTER')).toHaveLength(ours);
      expect(codes.filter((x) => x === 'ROSTER_ROW_CONTACT_EXISTS')).toHaveLength(ours + 2 * c.body.data.staged);
      const phones = shared.map((p) => cipher().lookupHash(p.phone));
      const [{ n }] = await t.db.query<{ n: number }>('select count(*)::int as n from users where phone_hash = any($1)', [phones]);
      expect(n).toBe(20);
      expect((await rosterCount(admin.companyId)) + (await rosterCount(rival.companyId))).toBe(20);
    }
  });
});

describe('POST /b2b/roster/stage: request limits and guards', () => {
  it.each([
    ['no rows', { rows: [] }],
    ['501 rows', { rows: Array.from({ length: 501 }, () => ({})) }],
    ['rows not an array', { rows: { name: 'x' } }],
    ['rows missing', {}],
    ['an unknown field', { rows: [person()], companyId: '00000000-0000-0000-0000-000000000000' }],
  ])('answers VALIDATION_ERROR for %s (nothing staged)', async (_label, body) => {
    const admin = await rosterCaller(t);
    const res = await request(t.app).post('/b2b/roster/stage').set(bearer(admin.token)).set('Accept-Language', 'ar').send(body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(res).message).toBe(errorCodes.VALIDATION_ERROR.ar);
    expect(await rosterCount(admin.companyId)).toBe(0);
  });

  it('refuses callers who may not write, with the spec codes, in both languages', async () => {
    const row = [person()];
    expect((await request(t.app).post('/b2b/roster/stage').send({ rows: row })).status).toBe(401);
    const endUser = await signUp(t);
    const staff = await signInAs(t, 'admin', { view: ['b2b'], manage: ['b2b'] });
    const lonely = await signInAs(t, 'b2b_admin');
    const member = await rosterCaller(t, 'approved', 'member');
    for (const token of [endUser.token, staff.token, lonely.token, member.token]) {
      const res = await stage(t, token, row, 'ar');
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([403, 'AUTH_FORBIDDEN', errorCodes.AUTH_FORBIDDEN.ar]);
    }
    for (const [status, code] of [
      ['pending', 'COMPANY_NOT_APPROVED'],
      ['suspended', 'COMPANY_SUSPENDED'],
      ['rejected', 'COMPANY_REJECTED'],
    ] as const) {
      const admin = await rosterCaller(t, status);
      const en = await stage(t, admin.token, row);
      expect([en.status, errorCode(en), errorOf(en).message]).toEqual([403, code, errorCodes[code].en]);
      const ar = await stage(t, admin.token, row, 'ar');
      expect(errorOf(ar).message).toBe(errorCodes[code].ar);
      expect(await rosterCount(admin.companyId)).toBe(0);
    }
  });
});
