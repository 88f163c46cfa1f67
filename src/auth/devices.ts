import { createHmac, createSecretKey } from 'node:crypto';
import type { Sql } from '../db/sql';
import { AppError } from '../http/errors';
import { isDeviceBlocklisted } from './repository';

// The header, its documentation and its reading are HTTP's (src/http/device-id.ts); this module keeps the
// devices' hashing and blocklist check.
export { DEVICE_ID_HEADER, DeviceIdHeader, deviceIdOf } from '../http/device-id';

/** Keyed hash of a device id: HMAC-SHA256 under the lookup-hash key, kept apart from other lookups by a prefix. */
export function deviceHasher(hashKey: string): (deviceId: string) => string {
  const key = createSecretKey(Buffer.from(hashKey, 'utf8'));
  return (deviceId) => createHmac('sha256', key).update(`device:${deviceId}`).digest('hex');
}

/** Refuses sign-in (register, login, verify-otp, magic-link) from a blocklisted device. */
export function createDeviceCheck(deps: { db: Sql; hashKey: string }) {
  const hash = deviceHasher(deps.hashKey);
  return async function assertDeviceAllowed(deviceId: string | undefined): Promise<void> {
    if (deviceId && (await isDeviceBlocklisted(deps.db, hash(deviceId)))) throw new AppError('AUTH_BLOCKLISTED');
  };
}

export type DeviceCheck = ReturnType<typeof createDeviceCheck>;
