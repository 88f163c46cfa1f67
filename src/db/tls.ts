import { readFileSync } from 'node:fs';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { ConfigError } from '../config';
import { parsePostgresUrl, type SslMode } from '../lib/postgres-url';

/** What the pool and MikroORM connect with: the URL without its TLS parameters, and the TLS options, the same for both. */
export interface PostgresConnection {
  connectionString: string;
  ssl: false | ConnectionOptions;
}

/**
 * DATABASE_URL's sslmode, with libpq's meaning, and DATABASE_SSL_CA_FILE:
 * - `disable` (or none): plaintext.
 * - `require`: encrypted, the certificate unchecked; with a CA file it is checked as verify-ca (as libpq does).
 * - `verify-ca`: the certificate must chain to the CA (the file, or the system's), whatever name it carries.
 * - `verify-full`: that, and the certificate must name the host of the URL.
 * Production accepts only the last two for a remote host, verify-ca only with the CA file (src/config.ts):
 * verify-ca against the system's CAs would take any public certificate, for any name.
 */
export function postgresConnection(url: string, caFile?: string): PostgresConnection {
  const parsed = parsePostgresUrl(url);
  if ('error' in parsed) throw new ConfigError(`Invalid configuration:\n  DATABASE_URL: ${parsed.error}`);
  const { connectionString, sslmode, host } = parsed.url;
  return { connectionString, ssl: sslOptions(sslmode, host, caFile) };
}

function sslOptions(mode: SslMode, host: string, caFile: string | undefined): false | ConnectionOptions {
  if (mode === 'disable') return false;
  const ca = caFile === undefined ? undefined : readCa(caFile);
  if (mode === 'require' && ca === undefined) return { rejectUnauthorized: false };
  if (mode === 'verify-full') {
    // Checked against the URL's host ourselves: pg hands tls.connect no host for an IP address, and Node then checks "localhost".
    return { rejectUnauthorized: true, ...(ca ? { ca } : {}), checkServerIdentity: (_name, cert) => checkServerIdentity(host, cert) };
  }
  // verify-ca: the chain, not the name.
  return { rejectUnauthorized: true, ...(ca ? { ca } : {}), checkServerIdentity: () => undefined };
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  DATABASE_SSL_CA_FILE: cannot read ${file} (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}
