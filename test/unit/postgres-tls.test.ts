/**
 * Issue 22: "TLS settings for … Postgres (sslmode and CA, honoured by both the ORM and the pool)", tested
 * "against a local Postgres started with a self-signed certificate". An embedded PostgreSQL of its own
 * with ssl=on and a certificate our test CA signed for 127.0.0.1 only; pg_stat_ssl says whether the
 * session the pool or MikroORM opened is encrypted.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, runMigrations, type Database } from '../../src/db/database';
import { openOrm } from '../../src/db/orm';
import { postgresConnection } from '../../src/db/tls';
import { makeCertificates, type TestCertificates } from '../helpers/certs';
import { startPostgresProcess, type PostgresProcess } from '../helpers/postgres-process';

const SSL_OF_SESSION = 'select ssl from pg_stat_ssl where pid = pg_backend_pid()';

let certs: TestCertificates;
let server: PostgresProcess;
let dataDir: string;
/** postgres://…@127.0.0.1:port/tls_test, without sslmode. */
let base: string;

beforeAll(async () => {
  certs = makeCertificates();
  // Postgres refuses a key others can read, and runs as the `postgres` user when we are root.
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    for (const file of [certs.serverCert, certs.serverKey]) chownSync(file, uid, uid);
  }
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'pg-tls-'));
  server = await startPostgresProcess({
    dir: path.join(dataDir, 'pg'),
    flags: ['-c', 'ssl=on', '-c', `ssl_cert_file=${certs.serverCert}`, '-c', `ssl_key_file=${certs.serverKey}`],
    databases: ['tls_test'],
  });
  base = server.url('tls_test');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  certs?.remove();
});

const withMode = (mode: string, host = '127.0.0.1') => {
  const url = new URL(base);
  url.hostname = host;
  url.searchParams.set('sslmode', mode);
  return url.toString();
};

const config = (url: string, caFile?: string) => ({
  DATABASE_URL: url,
  DATABASE_SSL_CA_FILE: caFile,
  DATABASE_POOL_MAX: 2,
  EMBEDDED_PG_DIR: 'unused',
  EMBEDDED_PG_PORT: 0,
});

async function sessionSsl(database: Database): Promise<boolean> {
  const { rows } = await database.pool.query<{ ssl: boolean }>(SSL_OF_SESSION);
  return rows[0].ssl;
}

/** What MikroORM's own connection (the migrator's) says about its session. */
async function ormSessionSsl(url: string, caFile?: string): Promise<boolean> {
  const orm = await openOrm(postgresConnection(url, caFile), 1);
  try {
    const rows = await orm.em.getConnection().execute<Array<{ ssl: boolean }>>(SSL_OF_SESSION);
    return rows[0].ssl;
  } finally {
    await orm.close();
  }
}

describe('Postgres over TLS', () => {
  it('verify-full with the CA: migrations (MikroORM) and the pool both connect encrypted', async () => {
    const database = await openDatabase(config(withMode('verify-full'), certs.ca), { schema: 'migrate' });
    try {
      expect(await sessionSsl(database)).toBe(true);
      const { rows } = await database.pool.query<{ n: number }>('select count(*)::int as n from mikro_orm_migrations');
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await database.close();
    }
    expect(await ormSessionSsl(withMode('verify-full'), certs.ca)).toBe(true);
  });

  it('sslmode=require in the URL reaches MikroORM too (it used to drop it and connect in plaintext)', async () => {
    expect(await ormSessionSsl(withMode('require'))).toBe(true);
  });

  it('sslmode=disable stays plaintext (the server allows both)', async () => {
    const database = await openDatabase(config(withMode('disable')), { schema: 'as-is' });
    try {
      expect(await sessionSsl(database)).toBe(false);
    } finally {
      await database.close();
    }
  });

  it('a wrong CA is refused, by the pool and by the migrations', async () => {
    const database = await openDatabase(config(withMode('verify-full'), certs.otherCa), { schema: 'as-is' });
    try {
      await expect(sessionSsl(database)).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    } finally {
      await database.close();
    }
    await expect(runMigrations(postgresConnection(withMode('verify-ca'), certs.otherCa))).rejects.toThrow(
      /self[- ]signed|unable to verify|certificate/i,
    );
  });

  it('verify-full checks the host name; verify-ca checks only the CA', async () => {
    // The certificate names 127.0.0.1, not localhost.
    await expect(ormSessionSsl(withMode('verify-full', 'localhost'), certs.ca)).rejects.toThrow(/localhost|altnames|host/i);
    expect(await ormSessionSsl(withMode('verify-ca', 'localhost'), certs.ca)).toBe(true);
  });

  // Issue 33: production accepts verify-ca only with DATABASE_SSL_CA_FILE; that pairing must check the chain.
  it('verify-ca with a CA file checks the chain, by the pool and by the migrations: a certificate of another CA is refused', async () => {
    const database = await openDatabase(config(withMode('verify-ca'), certs.otherCa), { schema: 'as-is' });
    try {
      await expect(sessionSsl(database)).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    } finally {
      await database.close();
    }
    await expect(ormSessionSsl(withMode('verify-ca'), certs.otherCa)).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    // Without the file the chain must end at a CA the system trusts, which ours is not.
    await expect(ormSessionSsl(withMode('verify-ca'))).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    // The right CA passes, and the pool's session is encrypted.
    const verified = await openDatabase(config(withMode('verify-ca'), certs.ca), { schema: 'as-is' });
    try {
      expect(await sessionSsl(verified)).toBe(true);
    } finally {
      await verified.close();
    }
  });

  it('an unreadable CA file stops start-up, naming the setting', async () => {
    await expect(openDatabase(config(withMode('verify-full'), path.join(certs.dir, 'missing.pem')), { schema: 'as-is' })).rejects.toThrow(
      /DATABASE_SSL_CA_FILE: cannot read/,
    );
  });
});
