import { chars, PathId, text } from '../http/fields';
import { z } from '../openapi/registry';

export const Reason = text(1, 500, 'Reason').openapi({ description: 'Why (kept in the audit trail only)' });
export const DeviceId = chars(1, 200).openapi({ description: 'The device id exactly as the mobile app sends it in X-Device-Id' });

export const UserBlocklistParams = z.object({ id: PathId });
export const BlocklistUserBody = z.strictObject({ reason: Reason }).openapi('BlocklistUserRequest');
export const UserBlocklistState = z
  .object({
    data: z.object({
      userId: z.uuid(),
      blocklisted: z.boolean(),
      blocklistedAt: z.iso.datetime().nullable(),
      revokedSessions: z.int().min(0).openapi({ description: 'Live sessions this call ended' }),
    }),
  })
  .openapi('UserBlocklistState');

export const BlocklistDeviceBody = z.strictObject({ deviceId: DeviceId, reason: Reason }).openapi('BlocklistDeviceRequest');
export const DeviceBlocklistParams = z.object({
  deviceId: z.string().min(1).max(200).openapi({ description: 'The device id as the app sends it, URL-encoded' }),
});
export const DeviceBlocklistState = z
  .object({
    data: z.object({
      deviceId: z.string(),
      blocklisted: z.boolean(),
      revokedSessions: z.int().min(0).openapi({ description: 'Live sessions signed in from the device that this call ended' }),
    }),
  })
  .openapi('DeviceBlocklistState');
