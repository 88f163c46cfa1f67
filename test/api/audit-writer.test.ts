import { randomUUID } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { auditRequestContext, writeAudit } from '../../src/audit/writer';
import { insertUser as insertUserRow } from '../helpers/companies';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(4);
});
afterAll(() => db.drop());

const insertUser = (name: string) => insertUserRow(db, name, 'super_admin');

interface AuditRow {
  id: string;
  action: string;
  actor_user_id: string | null;
  company_id: string | null;
  entity_type: string;
  entity_id: string | null;
  details: unknown;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
}
/** The ORM's pool reads timestamptz as text; the rows here carry Dates. */
async function rowsOf(action: string): Promise<AuditRow[]> {
  const rows = await db.query<AuditRow & { created_at: string }>('select * from audit_events where action = $1 order by created_at, id', [
    action,
  ]);
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at) }));
}

describe('writeAudit', () => {
  it('writes nothing when the caller’s transaction rolls back', async () => {
    const actor = await insertUser('Rollback admin');
    const attempt = db.sql.transaction(async (tx) => {
      await writeAudit(tx, { action: 'org.settings_updated', actorUserId: actor, entityType: 'organization_settings' });
      await tx.exec('update users set name = $1 where id = $2', ['Renamed', actor]);
      throw new Error('the use case failed after the audit row');
    });
    await expect(attempt).rejects.toThrow('the use case failed after the audit row');
    expect(await rowsOf('org.settings_updated')).toEqual([]);
    expect(await db.query('select name from users where id = $1', [actor])).toEqual([{ name: 'Rollback admin' }]);
  });

  it('writes one row with every field when the transaction commits', async () => {
    const actor = await insertUser('Status admin');
    const companyId = randomUUID();
    const at = new Date('2026-05-05T05:05:05.505Z');
    const id = await db.sql.transaction((tx) =>
      writeAudit(tx, {
        action: 'company.status_changed',
        actorUserId: actor,
        companyId,
        entityType: 'company',
        entityId: companyId,
        details: { from: 'pending', to: 'approved', reason: 'Documents checked', nested: { counts: [1, 2] } },
        ip: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
        at,
      }),
    );
    expect(await rowsOf('company.status_changed')).toEqual([
      {
        id,
        action: 'company.status_changed',
        actor_user_id: actor,
        company_id: companyId,
        entity_type: 'company',
        entity_id: companyId,
        details: { from: 'pending', to: 'approved', reason: 'Documents checked', nested: { counts: [1, 2] } },
        ip: '203.0.113.7',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
        created_at: at,
      },
    ]);
  });

  it('writes a system action with defaults, and keeps the row when its actor is deleted', async () => {
    const before = Date.now();
    await db.sql.transaction((tx) => writeAudit(tx, { action: 'company.system_check', actorUserId: null, entityType: 'company' }));
    const [system] = await rowsOf('company.system_check');
    expect(system).toMatchObject({ actor_user_id: null, company_id: null, entity_id: null, details: {}, ip: null, user_agent: null });
    expect(system.created_at.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const actor = await insertUser('Leaving admin');
    await db.sql.transaction((tx) =>
      writeAudit(tx, { action: 'company.roster_export', actorUserId: actor, entityType: 'roster', details: { rows: 12 } }),
    );
    await db.query('delete from users where id = $1', [actor]);
    expect(await rowsOf('company.roster_export')).toEqual([expect.objectContaining({ actor_user_id: null, details: { rows: 12 } })]);
  });

  it.each([{ token: 'abc' }, { rawLink: 'https://x/y' }, { after: { entries: [{ link: 'https://x' }] } }, { Authorization: 'Bearer x' }])(
    'refuses details holding a secret (%j) and so rolls the use case back',
    async (details) => {
      const attempt = db.sql.transaction((tx) =>
        writeAudit(tx, { action: 'company.links_export', actorUserId: null, entityType: 'roster', details }),
      );
      await expect(attempt).rejects.toThrow(/never audited/);
      expect(await rowsOf('company.links_export')).toEqual([]);
    },
  );
});

describe('auditRequestContext', () => {
  it('takes the client address as Express resolves it, and a bounded user agent', async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.get('/', (req, res) => {
      res.json(auditRequestContext(req));
    });
    const forwarded = await request(app).get('/').set('X-Forwarded-For', '198.51.100.4').set('User-Agent', 'okhttp/4.12.0');
    expect(forwarded.body).toEqual({ ip: '198.51.100.4', userAgent: 'okhttp/4.12.0' });

    const long = await request(app).get('/').set('User-Agent', 'x'.repeat(2000));
    expect((long.body as { userAgent: string }).userAgent).toBe('x'.repeat(512));

    const untrusted = express();
    untrusted.get('/', (req, res) => {
      res.json(auditRequestContext(req));
    });
    const direct = await request(untrusted).get('/').set('X-Forwarded-For', '198.51.100.4').unset('User-Agent');
    const { ip, userAgent } = direct.body as { ip: string; userAgent: string | null };
    expect([ip.endsWith('127.0.0.1') || ip === '::1', userAgent]).toEqual([true, null]);
  });
});
