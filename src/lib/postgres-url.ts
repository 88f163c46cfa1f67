/**
 * DATABASE_URL read once for both of its users, the pool (src/db/database.ts) and MikroORM's migrator
 * (src/db/orm.ts): the host, the sslmode, and the URL without its TLS parameters. MikroORM builds its
 * connection from the URL's parts and used to drop `?sslmode=…` silently; pg lets the URL's parameters
 * override the options next to it. So neither reads TLS from the URL: both get the same `ssl` options
 * (src/db/tls.ts), and a TLS parameter we do not honour stops start-up instead of being ignored.
 */

/** libpq's modes that pg can honour. `prefer` and `allow` fall back to plaintext, which pg cannot do. */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** TLS parameters pg or libpq would read from the URL and we do not: the CA comes from DATABASE_SSL_CA_FILE. */
const NOT_READ: Record<string, string> = {
  sslrootcert: 'sslrootcert is not read from the URL: use DATABASE_SSL_CA_FILE',
  sslcert: 'sslcert is not read from the URL: client certificates are not supported',
  sslkey: 'sslkey is not read from the URL: client certificates are not supported',
  sslpassword: 'sslpassword is not read from the URL: client certificates are not supported',
  sslcrl: 'sslcrl is not read from the URL',
  ssl: 'ssl is not read from the URL: use sslmode=require, verify-ca or verify-full',
  uselibpqcompat: 'uselibpqcompat is not read from the URL: sslmode already has libpq meaning here',
};

export interface PostgresUrl {
  /** Host name or address; a Unix socket directory when the URL names one (`?host=/run/postgresql`). */
  host: string;
  /** `disable` when the URL says nothing, as pg does. */
  sslmode: SslMode;
  /** The URL without sslmode: what the pool and MikroORM connect with. */
  connectionString: string;
}

/** Reads DATABASE_URL; the error names what is wrong without repeating the URL (it holds the password). */
export function parsePostgresUrl(text: string): { url: PostgresUrl } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: 'is not a URL (postgres://user:password@host:5432/database)' };
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return { error: 'must start with postgres:// or postgresql://' };
  for (const key of url.searchParams.keys()) {
    if (key in NOT_READ) return { error: NOT_READ[key] };
  }
  const mode = url.searchParams.get('sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    return { error: `sslmode=${mode} is not supported: use disable, require, verify-ca or verify-full` };
  }
  url.searchParams.delete('sslmode');
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '');
  return { url: { host, sslmode: mode as SslMode, connectionString: url.toString() } };
}
