import { isIPv4 } from 'node:net';

/**
 * Whether `host` stays on this machine: `localhost`, 127.0.0.0/8, ::1, or a Unix socket directory
 * (Postgres' `host=/var/run/postgresql`). Production refuses plaintext to anything else.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name.startsWith('/')) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
  return isIPv4(name) && name.startsWith('127.');
}

/** The host of a gRPC `host:port` address (`[::1]:7233` gives `::1`). */
export function hostOfAddress(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1];
  const colon = address.lastIndexOf(':');
  return colon > 0 && address.indexOf(':') === colon ? address.slice(0, colon) : address;
}
