import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

export const COMPANY_STATUSES = ['pending', 'approved', 'rejected', 'suspended'] as const;
export type CompanyStatus = (typeof COMPANY_STATUSES)[number];
export const PAYMENT_MODES = ['prepaid', 'flexible'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];
export const COMPANY_ROLES = ['admin', 'member'] as const;
export type CompanyRole = (typeof COMPANY_ROLES)[number];

/**
 * A B2B customer. The contact e-mail and phone are a person's, so they are stored like users'
 * (AES-GCM ciphertext, lookups on the keyed `*Hash`); the company name, CR number and contact
 * name are not encrypted (the admin list searches name and CR number, and users' names are plain too).
 */
export const Company = defineEntity({
  name: 'Company',
  tableName: 'companies',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    /** 10 digits in Saudi Arabia, else 3-30 trimmed characters. */
    crNumber: p.string().length(30).unique(),
    name: p.string().length(255),
    contactName: p.string().length(255),
    contactEmailEncrypted: p.text(),
    contactEmailHash: p.string().length(64),
    contactPhoneEncrypted: p.text(),
    contactPhoneHash: p.string().length(64),
    status: p.enum(COMPANY_STATUSES).default('pending'),
    /** Null until the company picks one. */
    paymentMode: p.enum(PAYMENT_MODES).nullable(),
    /** Stamped on approve only. */
    approvedBy: () => p.manyToOne(User).mapToPk().nullable().fieldName('approved_by'),
    approvedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    // The admin list: newest first, optionally one status.
    {
      name: 'companies_status_created_index',
      expression: 'create index "companies_status_created_index" on "companies" ("status", "created_at" desc, "id" desc)',
    },
    { name: 'companies_created_index', expression: 'create index "companies_created_index" on "companies" ("created_at" desc, "id" desc)' },
    // The admin quote queue: companies A to Z (case folded, then as written, then id), walked in order.
    {
      name: 'companies_name_order_index',
      expression: 'create index "companies_name_order_index" on "companies" (lower("name"), "name", "id")',
    },
    // Substring search by name (GET /admin/links).
    {
      name: 'companies_name_trigram_index',
      expression: 'create index "companies_name_trigram_index" on "companies" using gin ("name" gin_trgm_ops)',
    },
  ],
});
export type CompanyRow = InstanceType<typeof Company.class>;

/**
 * Portal staff of a company: `admin` reads and writes, `member` only reads. A user belongs to at
 * most one company (unique user). The route guard reads this with the company on every request.
 */
export const CompanyUser = defineEntity({
  name: 'CompanyUser',
  tableName: 'company_users',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    company: () => p.manyToOne(Company).mapToPk().deleteRule('cascade').index(),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade').unique(),
    role: p.enum(COMPANY_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
