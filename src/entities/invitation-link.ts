import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

export const LINK_STATUSES = ['issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * A company invitation (magic link). Only the SHA-256 of the token is stored.
 * Company, roster and contract columns are completed by the B2B portal.
 */
export const InvitationLink = defineEntity({
  name: 'InvitationLink',
  tableName: 'invitation_links',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    tokenHash: p.string().length(64).unique(),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade').index(),
    companyId: p.uuid().nullable().index(),
    packageId: p.uuid().nullable(),
    status: p.enum(LINK_STATUSES).default('issued'),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
