import { defineEntity, p } from '@mikro-orm/core';
import { ContractItem } from './contract';
import { LINK_CHANNELS, LINK_STATUSES } from './link-status';
import { RosterEntry } from './roster-entry';
import { User } from './user';

export { ACTIVE_LINK_SQL, ACTIVE_LINK_STATUSES, LINK_CHANNELS, LINK_STATUSES, type LinkChannel, type LinkStatus } from './link-status';

/**
 * A company invitation (magic link). Only the SHA-256 of the token is stored.
 * Company, roster and contract columns are completed by the B2B portal. A link minted for a roster
 * entry points at it (`roster_entry_id`); the trigger `roster_entries_latest_link` copies the entry's
 * newest link onto the roster row (see RosterEntry).
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
    /**
     * The prepaid contract line whose seat the link holds: a seat is consumed by a link that is
     * `used`, or still active and not past expiry (contracts' consumedQty).
     */
    contractItem: () => p.manyToOne(ContractItem).mapToPk().nullable().deleteRule('set null').index(),
    /** The roster entry the link was minted for; its history goes with the entry. */
    rosterEntry: () => p.manyToOne(RosterEntry).mapToPk().nullable().deleteRule('cascade'),
    status: p.enum(LINK_STATUSES).default('issued'),
    /** How it was handed out (send: e-mail / SMS / both; export and reissue-expired: `export`). */
    channel: p.enum(LINK_CHANNELS).nullable(),
    /** The portal admin who minted it (null once that account is gone). */
    createdBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('created_by'),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    // An entry's latest link (and its history), newest first.
    {
      name: 'invitation_links_roster_latest_index',
      expression:
        'create index "invitation_links_roster_latest_index" on "invitation_links" ("roster_entry_id", "created_at" desc, "id" desc) where "roster_entry_id" is not null',
    },
    // The admin link list and its export (GET /admin/links): every company's links newest first, and the last 24 hours of mints.
    {
      name: 'invitation_links_created_index',
      expression: 'create index "invitation_links_created_index" on "invitation_links" ("created_at" desc, "id" desc)',
    },
    // The admin list's status filter and stats: one status, split at now by expiry (lazy expiry).
    {
      name: 'invitation_links_status_expiry_index',
      expression: 'create index "invitation_links_status_expiry_index" on "invitation_links" ("status", "expires_at")',
    },
  ],
});
