import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

export const OTP_PURPOSES = ['register', 'login', 'change_phone', 'change_email'] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];

/**
 * One issued code for one identifier. Only an HMAC of the code is stored. The
 * identifier it was sent to is kept as a lookup hash; a change-phone or
 * change-email challenge is also bound to the user who asked for it.
 */
export const OtpChallenge = defineEntity({
  name: 'OtpChallenge',
  tableName: 'otp_challenges',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    purpose: p.enum(OTP_PURPOSES),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade').index(),
    phoneHash: p.string().length(64).nullable(),
    emailHash: p.string().length(64).nullable(),
    codeHash: p.string().length(64),
    attempts: p.integer().default(0),
    /** Indexed for housekeeping, which purges expired codes. */
    expiresAt: p.datetime().index(),
    consumedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ['phoneHash', 'createdAt'] }, { properties: ['emailHash', 'createdAt'] }],
});

/** Every OTP request per identifier, counted for the 3-per-window limit. */
export const OtpRequest = defineEntity({
  name: 'OtpRequest',
  tableName: 'otp_requests',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    identifierHash: p.string().length(64),
    /** Indexed on its own for housekeeping, which purges counts older than the window. */
    createdAt: p.datetime().index(),
  },
  indexes: [{ properties: ['identifierHash', 'createdAt'] }],
});
