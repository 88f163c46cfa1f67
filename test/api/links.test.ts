import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import { itemCodes } from '../../src/http/error-codes';
import { bearer, createTestApp, errorCode, type TestApp } from '../helpers/app';
import { typed } from '../helpers/responses';
import { insertPackage } from '../helpers/catalog';
import { insertSeatLink } from '../helpers/contracts';
import { auditRows, insertActivation, linksOf, post, readyCompany, rosterRow } from '../helpers/links-fixtures';
import { person, stage } from '../helpers/roster';

// The link pipeline of issue 14: export, send, reissue-expired and revoke with every per-entry code,
// both payment modes, both languages; raw links only in export answers and messages.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const tokenOf = (link: string) => new URL(link).hash.replace(/^#token=/, '');
const item = (rosterId: string, code: keyof typeof itemCodes) => ({
  rosterId,
  code,
  messageEn: itemCodes[code].en,
  messageAr: itemCodes[code].ar,
});

interface ExportAnswer {
  data: {
    entries: { rosterId: string; name: string; contact: string | null; link: string; expiresAt: string }[];
    skipped: { rosterId: string; code: string; messageEn: string; messageAr: string }[];
  };
}
const exportBody = (res: { body: unknown }) => (res.body as ExportAnswer).data;

/** The contract's lines as GET /b2b/contract reports them. */
async function contractItems(token: string) {
  const res = await request(t.app).get('/b2b/contract').set(bearer(token));
  return typed<{ data: { items: { consumedQty: number; remainingQty: number }[] } }>(res).body.data.items;
}

async function listedLinkStatus(token: string, rosterId: string) {
  const res = typed<{ data: { entries: { id: string; linkStatus: string | null }[] } }>(
    await request(t.app).get('/b2b/roster').set(bearer(token)),
  );
  return res.body.data.entries.find((e) => e.id === rosterId)?.linkStatus;
}

/** The raw token in a message text. */
const tokenInText = (text: string) => /#token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '';

describe('readiness gate', () => {
  it('answers COMPANY_NOT_READY 409 while the contract is unpaid, and mints nothing', async () => {
    const c = await readyCompany(t, { paid: false });
    const res = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] });
    expect(res.status).toBe(409);
    expect(errorCode(res)).toBe('COMPANY_NOT_READY');
    expect(await linksOf(t, c.rosterIds[0])).toHaveLength(0);
    const send = await post(t, c.token, '/b2b/roster/links/send', { rosterIds: c.rosterIds });
    expect(errorCode(send)).toBe('COMPANY_NOT_READY');
  });
});

describe('prepaid export', () => {
  it('mints one redeemable link per entry: hash stored, roster assigned and priced, audited with counts only', async () => {
    const c = await readyCompany(t, { people: 2, lines: [{ qty: 5, unitPriceHalalas: 4_950 }] });
    const res = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [...c.rosterIds].reverse(), contractItemId: c.itemIds[0] });
    expect(res.status).toBe(200);
    const { entries, skipped } = exportBody(res);
    expect(skipped).toEqual([]);
    expect(entries.map((e) => e.rosterId)).toEqual(c.rosterIds);
    const expiresAt = new Date(t.clock().getTime() + 24 * HOUR).toISOString();
    for (const entry of entries) {
      expect(entry.link).toMatch(new RegExp(`^${t.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/invite#token=[A-Za-z0-9_-]{43}$`));
      expect(entry.expiresAt).toBe(expiresAt);
      expect(entry.contact).toMatch(/@staff\.example$/);
      const [link] = await linksOf(t, entry.rosterId);
      expect(link).toMatchObject({
        status: 'exported',
        channel: 'export',
        token_hash: sha256(tokenOf(entry.link)),
        contract_item_id: c.itemIds[0],
        package_id: c.packageIds[0],
        created_by: c.userId,
      });
      expect(await rosterRow(t, entry.rosterId)).toMatchObject({
        package_id: c.packageIds[0],
        contract_item_id: c.itemIds[0],
        unit_price_halalas: '4950',
      });
    }
    expect((await contractItems(c.token))[0]).toMatchObject({ consumedQty: 2, remainingQty: 3 });
    const audits = await auditRows(t, c.companyId, 'company.links_minted');
    expect(audits.map((a) => a.details)).toEqual([{ via: 'export', requested: 2, minted: 2, skipped: 0 }]);
    // Neither the raw link nor the token reached a log line or an audit row.
    const token = tokenOf(entries[0].link);
    expect(t.logLines.some((l) => l.includes(token))).toBe(false);
    expect(JSON.stringify(audits)).not.toContain(token);
    // The consumer side redeems it (POST /auth/magic-link), once.
    const redeemed = await request(t.app).post('/auth/magic-link').send({ token });
    expect(redeemed.status).toBe(200);
    expect((await linksOf(t, entries[0].rosterId))[0].status).toBe('used');
  });

  it('skips per entry: unknown and foreign entries, no line, quota; CONTRACT_ITEM_NOT_FOUND for an unknown line', async () => {
    const c = await readyCompany(t, { people: 4, lines: [{ qty: 2, unitPriceHalalas: 8_000 }] });
    const other = await readyCompany(t, { people: 1 });
    const unknownLine = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, contractItemId: other.itemIds[0] });
    expect(unknownLine.status).toBe(404);
    expect(errorCode(unknownLine)).toBe('CONTRACT_ITEM_NOT_FOUND');

    const noLine = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [c.rosterIds[0]] }, 'ar');
    expect(exportBody(noLine).skipped).toEqual([item(c.rosterIds[0], 'LINK_PACKAGE_NOT_ASSIGNED')]);

    const missing = randomUUID();
    const res = await post(t, c.token, '/b2b/roster/links/export', {
      rosterIds: [...c.rosterIds, missing, other.rosterIds[0]],
      contractItemId: c.itemIds[0],
    });
    const { entries, skipped } = exportBody(res);
    // Decided in rosterId order: the first two take the two seats.
    expect(entries.map((e) => e.rosterId)).toEqual(c.rosterIds.slice(0, 2));
    const expected = [
      item(c.rosterIds[2], 'ACTIVATION_QUOTA_EXCEEDED'),
      item(c.rosterIds[3], 'ACTIVATION_QUOTA_EXCEEDED'),
      item(missing, 'ROSTER_ENTRY_NOT_FOUND'),
      item(other.rosterIds[0], 'ROSTER_ENTRY_NOT_FOUND'),
    ].sort((a, b) => (a.rosterId < b.rosterId ? -1 : 1));
    expect(skipped).toEqual(expected);
    expect(skipped[0].messageAr).toBe(itemCodes[skipped[0].code as keyof typeof itemCodes].ar);
  });

  it('re-mints a seat holder without a second seat, revoking the prior link; a redeemed row survives', async () => {
    const c = await readyCompany(t, { people: 2, lines: [{ qty: 1, unitPriceHalalas: 8_000 }] });
    const [a, b] = c.rosterIds;
    const first = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a], contractItemId: c.itemIds[0] });
    expect(exportBody(first).entries).toHaveLength(1);
    const again = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a, b], contractItemId: c.itemIds[0] });
    expect(exportBody(again).entries.map((e) => e.rosterId)).toEqual([a]);
    expect(exportBody(again).skipped).toEqual([item(b, 'ACTIVATION_QUOTA_EXCEEDED')]);
    expect((await linksOf(t, a)).map((l) => l.status)).toEqual(['revoked', 'exported']);
    // The person redeems, abandons (activation failed) and is re-minted: the used row stays, no second seat.
    await request(t.app)
      .post('/auth/magic-link')
      .send({ token: tokenOf(exportBody(again).entries[0].link) })
      .expect(200);
    await insertActivation(t, { userId: (await rosterRow(t, a)).user_id, packageId: c.packageIds[0], status: 'failed' });
    const third = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a] });
    expect(exportBody(third).entries.map((e) => e.rosterId)).toEqual([a]);
    expect((await linksOf(t, a)).map((l) => l.status)).toEqual(['revoked', 'used', 'exported']);
    expect(await listedLinkStatus(c.token, a)).toBe('exported');
  });

  it('a batch default does not move a person who already holds a seat: they keep their line', async () => {
    const c = await readyCompany(t, {
      people: 1,
      lines: [
        { qty: 5, unitPriceHalalas: 8_000 },
        { qty: 5, unitPriceHalalas: 9_000 },
      ],
    });
    const [a] = c.rosterIds;
    const [first, second] = c.itemIds;
    await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a], contractItemId: first }).expect(200);
    const again = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a], contractItemId: second });
    expect(exportBody(again).entries.map((e) => e.rosterId)).toEqual([a]);
    expect(await rosterRow(t, a)).toMatchObject({ contract_item_id: first });
    const items = await t.db.query<{ id: string; consumed: string }>(
      `select ci.id, (select count(distinct l.user_id) from invitation_links l
                       where l.contract_item_id = ci.id and l.status in ('issued', 'sent', 'exported', 'used'))::text as consumed
         from contract_items ci where ci.id = any($1)`,
      [[first, second]],
    );
    expect(Object.fromEntries(items.map((i) => [i.id, i.consumed]))).toEqual({ [first]: '1', [second]: '0' });
  });

  it('skips an activated person with LINK_USER_ALREADY_ACTIVE', async () => {
    const c = await readyCompany(t, { people: 1 });
    await insertActivation(t, { userId: (await rosterRow(t, c.rosterIds[0])).user_id, packageId: c.packageIds[0], status: 'activated' });
    const res = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] });
    expect(exportBody(res)).toEqual({ entries: [], skipped: [item(c.rosterIds[0], 'LINK_USER_ALREADY_ACTIVE')] });
  });

  it('without ids exports every eligible entry: no live link, not activated', async () => {
    const c = await readyCompany(t, { people: 3 });
    await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [c.rosterIds[0]], contractItemId: c.itemIds[0] }).expect(200);
    const res = await post(t, c.token, '/b2b/roster/links/export', { contractItemId: c.itemIds[0] });
    expect(exportBody(res).entries.map((e) => e.rosterId)).toEqual(c.rosterIds.slice(1));
  });
});

describe('flexible export', () => {
  it('gates on the balance (funded − drawn − committed − accepted so far) and snapshots the B2B price', async () => {
    // 200 SAR funded, 80 SAR per link: two fit, the third is refused.
    const c = await readyCompany(t, { mode: 'flexible', people: 3, fundingHalalas: 20_000 });
    const res = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, packageId: c.packageIds[0] }, 'ar');
    const { entries, skipped } = exportBody(res);
    expect(entries.map((e) => e.rosterId)).toEqual(c.rosterIds.slice(0, 2));
    expect(skipped).toEqual([item(c.rosterIds[2], 'COMPANY_BALANCE_EXCEEDED')]);
    expect(await rosterRow(t, c.rosterIds[0])).toMatchObject({
      package_id: c.packageIds[0],
      contract_item_id: null,
      unit_price_halalas: '8000',
    });
    // A re-mint of a committed person draws nothing new.
    const again = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [c.rosterIds[1]] });
    expect(exportBody(again).entries).toHaveLength(1);
    // Revoking frees the commitment: the third now fits.
    await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [c.rosterIds[0]] }).expect(200);
    const third = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [c.rosterIds[2]], packageId: c.packageIds[0] });
    expect(exportBody(third).entries).toHaveLength(1);
  });

  it('PACKAGE_NOT_FOUND 404 for a default outside the live catalog; LINK_PACKAGE_UNAVAILABLE and NOT_ASSIGNED per entry', async () => {
    const c = await readyCompany(t, { mode: 'flexible', people: 2 });
    const unpriced = await insertPackage(t.db, { priceSarB2b: null });
    const bad = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds, packageId: unpriced });
    expect(bad.status).toBe(404);
    expect(errorCode(bad)).toBe('PACKAGE_NOT_FOUND');
    await t.db.query('update roster_entries set package_id = $2 where id = $1', [c.rosterIds[0], unpriced]);
    const res = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: c.rosterIds });
    expect(exportBody(res).skipped).toEqual([
      item(c.rosterIds[0], 'LINK_PACKAGE_UNAVAILABLE'),
      item(c.rosterIds[1], 'LINK_PACKAGE_NOT_ASSIGNED'),
    ]);
  });
});

describe('send', () => {
  it('delivers by e-mail and SMS, marks links sent, and never logs the link', async () => {
    const c = await readyCompany(t, { people: 2 });
    const before = t.messages.length;
    const res = await post(t, c.token, '/b2b/roster/links/send', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { sent: 2, failed: [] } });
    const messages = t.messages.slice(before);
    expect(messages.map((m) => m.channel).sort()).toEqual(['email', 'email', 'sms', 'sms']);
    for (const id of c.rosterIds) {
      const [link] = await linksOf(t, id);
      expect(link).toMatchObject({ status: 'sent', channel: 'email_sms', contract_item_id: c.itemIds[0] });
      // Both channels carry the same link, whose token hashes to the stored hash.
      const tokens = messages.map((m) => tokenInText(m.text)).filter((token) => sha256(token) === link.token_hash);
      expect(tokens).toHaveLength(2);
      expect(t.logLines.some((l) => l.includes(tokens[0]))).toBe(false);
    }
    const audits = await auditRows(t, c.companyId, 'company.links_minted');
    expect(audits.map((a) => a.details)).toEqual([{ via: 'send', requested: 2, minted: 2, skipped: 0 }]);
  });

  it('reports LINK_DELIVERY_FAILED (link failed) merged with mint failures, sorted by rosterId', async () => {
    const c = await readyCompany(t, { people: 3, contacts: 'email', lines: [{ qty: 2, unitPriceHalalas: 100 }] });
    const push = t.messages.push.bind(t.messages);
    t.messages.push = () => {
      throw new Error('provider down');
    };
    try {
      const res = await post(t, c.token, '/b2b/roster/links/send', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] }, 'ar');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          sent: 0,
          failed: [
            item(c.rosterIds[0], 'LINK_DELIVERY_FAILED'),
            item(c.rosterIds[1], 'LINK_DELIVERY_FAILED'),
            item(c.rosterIds[2], 'ACTIVATION_QUOTA_EXCEEDED'),
          ],
        },
      });
    } finally {
      t.messages.push = push;
    }
    expect((await linksOf(t, c.rosterIds[0]))[0]).toMatchObject({ status: 'failed', channel: 'email' });
  });
});

describe('reissue-expired', () => {
  it('does nothing when nothing expired (no mint, no audit), then re-mints the expired through export', async () => {
    const c = await readyCompany(t, { people: 2 });
    const empty = await post(t, c.token, '/b2b/roster/links/reissue-expired');
    expect(empty.body).toEqual({ data: { entries: [], skipped: [] } });
    expect(await auditRows(t, c.companyId, 'company.links_minted')).toHaveLength(0);
    await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [c.rosterIds[0]], contractItemId: c.itemIds[0] }).expect(200);
    t.clock.advance(25 * HOUR);
    try {
      const res = await post(t, c.token, '/b2b/roster/links/reissue-expired');
      expect(exportBody(res).entries.map((e) => e.rosterId)).toEqual([c.rosterIds[0]]);
      expect((await linksOf(t, c.rosterIds[0])).map((l) => l.status)).toEqual(['revoked', 'exported']);
      const audits = await auditRows(t, c.companyId, 'company.links_minted');
      expect(audits.map((a) => a.details.via).sort()).toEqual(['export', 'reissue_expired']);
    } finally {
      t.clock.advance(-25 * HOUR);
    }
  });

  it('goes through the export pipeline: an activated person is skipped, a full line is ACTIVATION_QUOTA_EXCEEDED', async () => {
    const c = await readyCompany(t, { people: 4, lines: [{ qty: 2, unitPriceHalalas: 8_000 }] });
    const [a, b, d, e] = c.rosterIds;
    await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a, b], contractItemId: c.itemIds[0] }).expect(200);
    t.clock.advance(25 * HOUR);
    try {
      // a's and b's links lapse, freeing both seats, which d and e take; then a activates anyway.
      await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [d, e], contractItemId: c.itemIds[0] }).expect(200);
      await insertActivation(t, { userId: (await rosterRow(t, a)).user_id, packageId: c.packageIds[0], status: 'activated' });
      const res = await post(t, c.token, '/b2b/roster/links/reissue-expired');
      expect(exportBody(res)).toEqual({
        entries: [],
        skipped: [item(a, 'LINK_USER_ALREADY_ACTIVE'), item(b, 'ACTIVATION_QUOTA_EXCEEDED')].sort((x, y) =>
          x.rosterId < y.rosterId ? -1 : 1,
        ),
      });
    } finally {
      t.clock.advance(-25 * HOUR);
    }
  });
});

describe('revoke', () => {
  it('revokes live links (stale ones too) and skips used, linkless and unknown entries, audited with counts', async () => {
    const c = await readyCompany(t, { people: 3 });
    const [a, b, d] = c.rosterIds;
    const userA = (await rosterRow(t, a)).user_id;
    await insertSeatLink(t.db, {
      companyId: c.companyId,
      userId: userA,
      contractItemId: c.itemIds[0],
      status: 'sent',
      expiresAt: new Date(t.clock().getTime() - HOUR),
    });
    await t.db.query('update invitation_links set roster_entry_id = $1 where user_id = $2', [a, userA]);
    const exported = await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [a, b], contractItemId: c.itemIds[0] });
    expect(exportBody(exported).entries).toHaveLength(2);
    await request(t.app)
      .post('/auth/magic-link')
      .send({ token: tokenOf(exportBody(exported).entries[1].link) })
      .expect(200);
    const missing = randomUUID();
    const sentBefore = t.messages.length;
    const res = typed<{ data: { revoked: unknown[]; skipped: unknown[] } }>(
      await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [a, b, d, missing] }, 'ar'),
    );
    expect(res.status).toBe(200);
    expect(t.messages.length).toBe(sentBefore); // the end user is not notified
    expect(res.body.data.revoked).toEqual([{ rosterId: a }]);
    expect(res.body.data.skipped).toEqual(
      [item(b, 'LINK_ALREADY_USED'), item(d, 'NO_ACTIVE_LINK'), item(missing, 'ROSTER_ENTRY_NOT_FOUND')].sort((x, y) =>
        x.rosterId < y.rosterId ? -1 : 1,
      ),
    );
    expect((await linksOf(t, a)).every((l) => l.status === 'revoked')).toBe(true);
    expect((await linksOf(t, b))[0].status).toBe('used');
    const audits = await auditRows(t, c.companyId, 'company.links_revoke');
    expect(audits.map((x) => x.details)).toEqual([{ requested: 4, revoked: 1, skipped: 3 }]);
    // The seat is free at once.
    expect((await contractItems(c.token))[0].consumedQty).toBe(1);
  });

  // "Revoke: flips every active link of the entry to revoked; a stale active row past expiry is also flipped."
  it('revokes an entry whose only link is active but past expiry (issued, exported); a stored expired or revoked link is NO_ACTIVE_LINK', async () => {
    const c = await readyCompany(t, { people: 4 });
    const ids = [...c.rosterIds].sort();
    const past = new Date(t.clock().getTime() - HOUR);
    for (const [id, status] of [
      [ids[0], 'issued'],
      [ids[1], 'exported'],
      [ids[2], 'expired'],
      [ids[3], 'revoked'],
    ]) {
      const userId = (await rosterRow(t, id)).user_id;
      await insertSeatLink(t.db, { companyId: c.companyId, userId, contractItemId: c.itemIds[0], status, expiresAt: past });
      await t.db.query('update invitation_links set roster_entry_id = $1 where user_id = $2', [id, userId]);
    }
    const res = typed<{ data: { revoked: unknown[]; skipped: unknown[] } }>(
      await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: ids }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      revoked: [{ rosterId: ids[0] }, { rosterId: ids[1] }],
      skipped: [item(ids[2], 'NO_ACTIVE_LINK'), item(ids[3], 'NO_ACTIVE_LINK')],
    });
    expect(await Promise.all(ids.map(async (id) => (await linksOf(t, id)).map((l) => l.status)))).toEqual([
      ['revoked'],
      ['revoked'],
      ['expired'],
      ['revoked'],
    ]);
    expect((await auditRows(t, c.companyId, 'company.links_revoke')).map((x) => x.details)).toEqual([
      { requested: 4, revoked: 2, skipped: 2 },
    ]);
  });

  it('answers VALIDATION_ERROR for an empty or oversized id list', async () => {
    const c = await readyCompany(t, { people: 1 });
    expect(errorCode(await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [] }))).toBe('VALIDATION_ERROR');
    const many = Array.from({ length: 501 }, () => randomUUID());
    expect(errorCode(await post(t, c.token, '/b2b/roster/links/send', { rosterIds: many }))).toBe('VALIDATION_ERROR');
    // Staging still works for the company (the fixtures are real).
    expect((await stage(t, c.token, [person()])).body.data.staged).toBe(1);
  });
});
