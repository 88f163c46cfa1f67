import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { BlocklistService } from './blocklist';
import * as s from './schemas';

export interface AdminRouteDeps {
  blocklist: BlocklistService;
}

const WHY_SUPER_ADMIN =
  'A blocklist shuts a person or a device out of the whole service, across every area, so it is a super_admin action ' +
  '(no staff area covers consumer accounts). Each change writes an audit row in the same transaction.';

/** The blocklists behind AUTH_BLOCKLISTED (403): users, and devices by the id the mobile app sends in X-Device-Id. */
export function adminRoutes(api: Api, deps: AdminRouteDeps): void {
  const tag = 'Administration';
  const { blocklist } = deps;

  api.define(
    {
      method: 'post',
      path: '/admin/users/:id/blocklist',
      tag,
      guard: guard.superAdmin,
      summary: 'Blocklist a user',
      description:
        `The user's sign-in and every authenticated request answer AUTH_BLOCKLISTED (403); their live sessions are revoked. ` +
        `Blocklisting a blocklisted user changes nothing; your own account is a VALIDATION_ERROR on \`id\`. ${WHY_SUPER_ADMIN}`,
      params: s.UserBlocklistParams,
      body: s.BlocklistUserBody,
      response: json(s.UserBlocklistState),
      errors: ['ADMIN_USER_NOT_FOUND'],
    },
    async ({ params, body, principal, req }) => ({
      data: await blocklist.blockUser({ userId: principal.user.id, ...auditRequestContext(req) }, params.id, body.reason),
    }),
  );

  api.define(
    {
      method: 'delete',
      path: '/admin/users/:id/blocklist',
      tag,
      guard: guard.superAdmin,
      summary: 'Lift a user blocklist',
      description: `The user signs in again (sessions ended by the block stay ended). A user not blocklisted: nothing changes. ${WHY_SUPER_ADMIN}`,
      params: s.UserBlocklistParams,
      response: json(s.UserBlocklistState),
      errors: ['ADMIN_USER_NOT_FOUND'],
    },
    async ({ params, principal, req }) => ({
      data: await blocklist.unblockUser({ userId: principal.user.id, ...auditRequestContext(req) }, params.id),
    }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/device-blocklist',
      tag,
      guard: guard.superAdmin,
      summary: 'Blocklist a device',
      description:
        'Sign-in (register, login, verify-otp, magic-link) and every authenticated request carrying this X-Device-Id, and every ' +
        'session signed in from the device, answer AUTH_BLOCKLISTED (403); those sessions are revoked. Only a keyed hash of the ' +
        `id is stored. A device already blocklisted: nothing changes. ${WHY_SUPER_ADMIN}`,
      body: s.BlocklistDeviceBody,
      response: json(s.DeviceBlocklistState),
      errors: [],
    },
    async ({ body, principal, req }) => ({
      data: await blocklist.blockDevice({ userId: principal.user.id, ...auditRequestContext(req) }, body.deviceId, body.reason),
    }),
  );

  api.define(
    {
      method: 'delete',
      path: '/admin/device-blocklist/:deviceId',
      tag,
      guard: guard.superAdmin,
      summary: 'Lift a device blocklist',
      description: `A device not blocklisted: nothing changes. ${WHY_SUPER_ADMIN}`,
      params: s.DeviceBlocklistParams,
      response: json(s.DeviceBlocklistState),
      errors: [],
    },
    async ({ params, principal, req }) => ({
      data: await blocklist.unblockDevice({ userId: principal.user.id, ...auditRequestContext(req) }, params.deviceId),
    }),
  );
}
