import { defineEntity, p } from '@mikro-orm/core';
import { Package } from './catalog';
import { Company } from './company';
import { User } from './user';

export const QUOTE_STATUSES = ['draft', 'submitted', 'under_review', 'countered', 'accepted', 'rejected', 'expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const QUOTE_PREFERENCES = ['minutes', 'data', 'mixed'] as const;
export type QuotePreference = (typeof QUOTE_PREFERENCES)[number];

/**
 * One version of a quote chain (the spec's "Quote version"; contracts point at it as quoteRequestId).
 * A chain starts with a company-authored version (parent null, chain_root_id = its own id); each
 * counter adds an admin-authored child. `parent_id` is unique, so a version has at most one child:
 * the tip (no child) is the only actionable version, and two counters of one version cannot both land.
 *
 * The needs object is stored as columns, money in integer halalas: `{ userCount, preference,
 * budgetSar }` (all three or none) and/or `fundingSar`.
 */
export const QuoteVersion = defineEntity({
  name: 'QuoteVersion',
  tableName: 'quote_versions',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    company: () => p.manyToOne(Company).mapToPk().deleteRule('cascade'),
    /** The chain's first version (its own id for the root): ref, workflow id and history are per chain. */
    chainRootId: p.uuid(),
    version: p.integer(),
    parent: () => p.manyToOne(QuoteVersion).mapToPk().nullable().unique().fieldName('parent_id'),
    status: p.enum(QUOTE_STATUSES).default('draft'),
    needsUserCount: p.integer().nullable(),
    needsPreference: p.enum(QUOTE_PREFERENCES).nullable(),
    needsBudgetHalalas: p.bigint('number').nullable(),
    needsFundingHalalas: p.bigint('number').nullable(),
    /** The reviewer's note (counter, admin reject); never the company's. */
    note: p.text().nullable(),
    /** The company's decline reason. */
    companyNote: p.text().nullable(),
    reviewedBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('reviewed_by'),
    reviewedAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('created_by'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [{ name: 'quote_versions_chain_version_unique', properties: ['chainRootId', 'version'] }],
  indexes: [
    // The portal list: a company's chains, newest first.
    {
      name: 'quote_versions_company_created_index',
      expression: 'create index "quote_versions_company_created_index" on "quote_versions" ("company_id", "created_at" desc, "id" desc)',
    },
    // Live version of each chain and the admin queue (by status of the tip).
    { name: 'quote_versions_status_index', expression: 'create index "quote_versions_status_index" on "quote_versions" ("status")' },
  ],
});
export type QuoteVersionRow = InstanceType<typeof QuoteVersion.class>;

/** A line of a quote version: a package and a quantity (1-10000). Prices are never quoted, only snapshotted on the contract. */
export const QuoteItem = defineEntity({
  name: 'QuoteItem',
  tableName: 'quote_items',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    quoteVersion: () => p.manyToOne(QuoteVersion).mapToPk().deleteRule('cascade').index(),
    package: () => p.manyToOne(Package).mapToPk(),
    qty: p.integer(),
  },
});
