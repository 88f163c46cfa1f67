// Certificates for the TLS tests, made with the machine's openssl: a CA, a server certificate it signs
// for 127.0.0.1 (and, when asked, DNS names), a client certificate it signs (mTLS), and a second,
// unrelated CA whose trust must be refused.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  dir: string;
  /** PEM file paths. */
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA that signed none of the above. */
  otherCa: string;
  read(file: string): Buffer;
  remove(): void;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function ca(dir: string, name: string): void {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
  );
}

function signed(dir: string, name: string, issuer: string, cn: string, extensions: string): void {
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${issuer}.pem`,
    '-CAkey',
    `${issuer}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  );
}

/**
 * Makes the set in a temp folder others may read (embedded Postgres runs as another user when we are root).
 * The server certificate names 127.0.0.1 and `serverNames`; with `ip: false`, only `serverNames`.
 */
export function makeCertificates({ serverNames = [] as string[], ip = true } = {}): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certs-'));
  chmodSync(dir, 0o755);
  ca(dir, 'ca');
  ca(dir, 'other-ca');
  const altNames = [...(ip ? ['IP:127.0.0.1'] : []), ...serverNames.map((name) => `DNS:${name}`)].join(',');
  signed(dir, 'server', 'ca', serverNames[0] ?? '127.0.0.1', `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
  signed(dir, 'client', 'ca', 'activation-sys-client', 'extendedKeyUsage=clientAuth\n');
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    ca: file('ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    otherCa: file('other-ca.pem'),
    read: (name) => readFileSync(name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
