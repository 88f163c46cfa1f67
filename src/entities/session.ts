import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

export const CLIENT_TYPES = ['mobile', 'web'] as const;
export type ClientType = (typeof CLIENT_TYPES)[number];

/** A signed-in session; its id is the JWT's `jti`. Revoking rows ends sessions at once. */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade').index(),
    clientType: p.enum(CLIENT_TYPES),
    /** Indexed for housekeeping, which purges expired sessions. */
    expiresAt: p.datetime().index(),
    revokedAt: p.datetime().nullable(),
    /** Keyed hash of the X-Device-Id the session signed in from, if any: blocklisting the device ends it. */
    deviceHash: p.string().length(64).nullable().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** SHA-256 of a logged-out mobile token, kept until the token would have expired. */
export const TokenBlocklist = defineEntity({
  name: 'TokenBlocklist',
  tableName: 'token_blocklist',
  properties: {
    tokenHash: p.string().length(64).primary(),
    expiresAt: p.datetime().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/**
 * A device shut out by a super_admin, by the keyed hash of the id the mobile app sends
 * (`X-Device-Id`); the id itself is never stored. Why is in the audit trail.
 */
export const DeviceBlock = defineEntity({
  name: 'DeviceBlock',
  tableName: 'device_blocklist',
  properties: {
    deviceHash: p.string().length(64).primary(),
    createdBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null'),
    createdAt: p.datetime(),
  },
});
