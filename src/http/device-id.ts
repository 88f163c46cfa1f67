import type { IncomingHttpHeaders } from 'node:http';
import { z } from '../openapi/registry';

/**
 * Devices. The mobile app sends a stable id of its installation in `X-Device-Id` on sign-in and
 * on every authenticated request. A super_admin can blocklist a device (src/admin/): sign-in from
 * it and every request carrying its id, or made with a session signed in from it, answer
 * AUTH_BLOCKLISTED. Only a keyed hash of the id is stored. The header is optional: browsers and
 * other clients send none, and the id is the app's word, so this stops a device the app
 * identifies, not a determined client (the user blocklist and deactivation stop accounts).
 */
export const DEVICE_ID_HEADER = 'X-Device-Id';

const DEVICE_ID_DESCRIPTION =
  'The mobile app’s device id (any string, compared by keyed hash). Sign-in and authenticated requests from a blocklisted device answer AUTH_BLOCKLISTED (403).';

/** The header as the document declares it on sign-in and authenticated routes. */
export const DeviceIdHeader = z.string().optional().openapi({ description: DEVICE_ID_DESCRIPTION });

/** The device id a request names, if any (a repeated header: the first). */
export function deviceIdOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[DEVICE_ID_HEADER.toLowerCase()];
  const id = Array.isArray(value) ? value[0] : value;
  return id ? id : undefined;
}
