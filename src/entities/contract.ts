import { defineEntity, p } from '@mikro-orm/core';
import { Package } from './catalog';
import { Company, PAYMENT_MODES } from './company';
import { QuoteVersion } from './quote';
import { User } from './user';

/** Only `active` is named by the spec; moves out of it are not. */
export const CONTRACT_STATUSES = ['active'] as const;
export const CONTRACT_PAYMENT_METHODS = ['bank_transfer', 'cheque'] as const;
export type ContractPaymentMethod = (typeof CONTRACT_PAYMENT_METHODS)[number];

/**
 * A company's contract, confirmed from a quote version. At most one `active` per company: the
 * partial unique index `contracts_company_active_unique` decides races (CONTRACT_ALREADY_EXISTS).
 * Money in integer halalas; `ref` is `CTR-` plus 12 hex characters.
 */
export const Contract = defineEntity({
  name: 'Contract',
  tableName: 'contracts',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    ref: p.string().length(16).unique(),
    company: () => p.manyToOne(Company).mapToPk().deleteRule('cascade'),
    quoteRequest: () => p.manyToOne(QuoteVersion).mapToPk().fieldName('quote_request_id'),
    paymentMode: p.enum(PAYMENT_MODES),
    status: p.enum(CONTRACT_STATUSES).default('active'),
    /** Prepaid: the sum of qty × unit price; flexible: the declared funding. */
    totalHalalas: p.bigint('number'),
    confirmedBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('confirmed_by'),
    confirmedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    {
      name: 'contracts_company_active_unique',
      expression: `create unique index "contracts_company_active_unique" on "contracts" ("company_id") where "status" = 'active'`,
    },
    {
      name: 'contracts_company_index',
      expression: 'create index "contracts_company_index" on "contracts" ("company_id", "created_at" desc)',
    },
  ],
});
export type ContractRow = InstanceType<typeof Contract.class>;

/** A prepaid contract line: seats of one package at the B2B price snapshotted at confirmation. */
export const ContractItem = defineEntity({
  name: 'ContractItem',
  tableName: 'contract_items',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    contract: () => p.manyToOne(Contract).mapToPk().deleteRule('cascade').index(),
    package: () => p.manyToOne(Package).mapToPk(),
    qty: p.integer(),
    unitPriceHalalas: p.bigint('number'),
  },
});

/**
 * A manual payment recorded against a contract, with its proof document (bytes returned only by the
 * download route). The idempotency key is unique per contract: a replay finds the original row.
 */
export const ContractPayment = defineEntity({
  name: 'ContractPayment',
  tableName: 'contract_payments',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    contract: () => p.manyToOne(Contract).mapToPk().deleteRule('cascade'),
    method: p.enum(CONTRACT_PAYMENT_METHODS),
    amountHalalas: p.bigint('number'),
    documentName: p.string().length(255),
    documentMime: p.string().length(64),
    documentBytes: p.blob().lazy(),
    idempotencyKey: p.string().length(128),
    confirmedBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('confirmed_by'),
    confirmedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'contract_payments_contract_key_unique', properties: ['contract', 'idempotencyKey'] }],
  indexes: [
    {
      name: 'contract_payments_contract_created_index',
      expression:
        'create index "contract_payments_contract_created_index" on "contract_payments" ("contract_id", "created_at" desc, "id" desc)',
    },
  ],
});
