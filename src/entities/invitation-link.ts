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
    companyId: p.uuid().nullable(),
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
    // A company's links newest first: its dashboard's 30-day mints (one range) and mint events, any lookup by company.
    {
      name: 'invitation_links_company_created_index',
      expression:
        'create index "invitation_links_company_created_index" on "invitation_links" ("company_id", "created_at" desc, "id" desc)',
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

/**
 * Links per stored status, kept by the statement-level triggers `invitation_link_tallies_*` on
 * invitation_links (migration AdminLinkTallies), never by the application. A statement adds its net
 * change as rows, then folds the rows of the keys it touched that no other transaction holds (skip
 * locked), so link writers never wait for one another; a status's count is the sum of its rows.
 * GET /admin/links reads its tiles and totals from these and InvitationLinkHourCount instead of
 * counting every link per request.
 */
export const InvitationLinkStatusCount = defineEntity({
  name: 'InvitationLinkStatusCount',
  tableName: 'invitation_link_status_counts',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    status: p.enum(LINK_STATUSES).index('invitation_link_status_counts_status_index'),
    links: p.bigint('number'),
  },
});

/**
 * Links per hour (UTC hours: `date_bin('1 hour', …, '2000-01-01Z')`), kept like InvitationLinkStatusCount:
 * kind `created` counts the links minted in the hour, an active status (`issued`, `sent`, `exported`)
 * the links in it whose expiresAt falls in the hour. With these, a count that lazy expiry or the
 * 24-hour window splits at now reads the hours wholly on one side, and counts links only within the
 * hour that holds now.
 */
export const InvitationLinkHourCount = defineEntity({
  name: 'InvitationLinkHourCount',
  tableName: 'invitation_link_hour_counts',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    kind: p.string().length(20),
    hour: p.datetime(),
    links: p.bigint('number'),
  },
  indexes: [{ name: 'invitation_link_hour_counts_kind_hour_index', properties: ['kind', 'hour'] }],
});
