import { defineEntity, p } from '@mikro-orm/core';
import { Package } from './catalog';
import { Company } from './company';
import { ContractItem } from './contract';
import { LINK_STATUSES } from './link-status';
import { User } from './user';

export const ROSTER_STATUSES = ['staged', 'enabled'] as const;
export type RosterStatus = (typeof ROSTER_STATUSES)[number];

/**
 * A beneficiary on a company's roster: one staged end-user account (created by staging, contact
 * encrypted on the user row) per company and person. Package, contract line and the price snapshot
 * are written when links are minted (later issue).
 *
 * `link_status`, `link_expires_at` and `link_created_at` copy the entry's newest invitation link
 * (created_at desc, id desc). They are written only by the trigger `roster_entries_latest_link` on
 * invitation_links (migration RosterEntries), never by the application, so the roster list filters
 * by link status and pages through an index instead of looking up every entry's latest link.
 * The stored status is the link's own; lazy expiry (an active link past link_expires_at reads
 * `expired`) is applied when reading.
 */
export const RosterEntry = defineEntity({
  name: 'RosterEntry',
  tableName: 'roster_entries',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    company: () => p.manyToOne(Company).mapToPk().deleteRule('cascade'),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade'),
    nationality: p.string().length(100).nullable(),
    status: p.enum(ROSTER_STATUSES).default('staged'),
    package: () => p.manyToOne(Package).mapToPk().nullable(),
    /** The prepaid contract line assigned to the entry (links issue). */
    contractItem: () => p.manyToOne(ContractItem).mapToPk().nullable().deleteRule('set null'),
    /** Price snapshot (halalas) taken at link mint, cleared on every assignment write; never in the list payload. */
    unitPriceHalalas: p.bigint('number').nullable(),
    /** The portal admin who staged the entry (null once that account is removed). */
    createdBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('created_by'),
    linkStatus: p.enum(LINK_STATUSES).nullable(),
    linkExpiresAt: p.datetime().nullable(),
    linkCreatedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ name: 'roster_entries_company_user_unique', properties: ['company', 'user'] }],
  indexes: [
    // The list: one company's entries newest first (index-only for the page's ids and for the total).
    {
      name: 'roster_entries_company_created_index',
      expression: 'create index "roster_entries_company_created_index" on "roster_entries" ("company_id", "created_at" desc, "id" desc)',
    },
    // The list filtered by roster status.
    {
      name: 'roster_entries_company_status_created_index',
      expression:
        'create index "roster_entries_company_status_created_index" on "roster_entries" ("company_id", "status", "created_at" desc, "id" desc)',
    },
    // The list filtered by link status (the latest link's, copied by the trigger).
    {
      name: 'roster_entries_company_link_created_index',
      expression:
        'create index "roster_entries_company_link_created_index" on "roster_entries" ("company_id", "link_status", "created_at" desc, "id" desc)',
    },
    // Foreign keys to users: the DELETE route and user removal find the entry by user.
    { name: 'roster_entries_user_index', properties: ['user'] },
  ],
});
export type RosterEntryRow = InstanceType<typeof RosterEntry.class>;

/**
 * How many roster entries a company has per roster status, kept by the statement-level triggers
 * `roster_counts_*` on roster_entries (migration RosterCounts), never by the application: the
 * roster list's `total` without a link-status filter or a search reads these rows instead of
 * counting the company's entries on every page.
 */
export const RosterCount = defineEntity({
  name: 'RosterCount',
  tableName: 'roster_counts',
  properties: {
    company: () => p.manyToOne(Company).mapToPk().primary().deleteRule('cascade'),
    status: p.enum(ROSTER_STATUSES).primary(),
    entries: p.integer().default(0),
  },
});
