import { defineEntity, p } from '@mikro-orm/core';
import { Order } from './order';

/**
 * The company's charges as GET /b2b/billing shows them: one row per live charge (a paid or completed
 * company order whose activation is alive, the balance's LIVE_CHARGE rule), with the answer's charge
 * entry already rendered as JSON text (date, personName, packageName, amountSar, paymentId). Kept by
 * the statement-level triggers `company_charges_*` on orders, order_items, activations, payments,
 * users (name) and packages (English name) through company_charges_refresh() (migration
 * CompanyCharges), never by the application: the billing answer of a company with 10,000 charges
 * reads one table instead of joining five.
 */
export const CompanyCharge = defineEntity({
  name: 'CompanyCharge',
  tableName: 'company_charges',
  properties: {
    order: () => p.manyToOne(Order).mapToPk().primary().deleteRule('cascade'),
    companyId: p.uuid(),
    createdAt: p.datetime(),
    userId: p.uuid(),
    packageId: p.uuid().nullable(),
    /** The order's total, in halalas. */
    amountHalalas: p.bigint('number'),
    paymentId: p.uuid().nullable(),
    /** The charge entry of the billing answer, as JSON text. */
    chargeJson: p.text(),
  },
  indexes: [
    // The company's charges, newest first.
    {
      name: 'company_charges_company_created_index',
      expression:
        'create index "company_charges_company_created_index" on "company_charges" ("company_id", "created_at" desc, "order_id" desc)',
    },
    // A person's or a package's rename re-renders their rows.
    { name: 'company_charges_user_index', properties: ['userId'] },
    { name: 'company_charges_package_index', properties: ['packageId'] },
  ],
});

/**
 * Per paid or completed company order and package: its activated (not deleted) activations and the
 * Σ of their items' price × quantity in halalas, the rows GET /b2b/billing's activeLines adds up
 * (the balance's activeLines rule). Kept by the same triggers as company_charges.
 */
export const CompanyOrderLine = defineEntity({
  name: 'CompanyOrderLine',
  tableName: 'company_order_lines',
  properties: {
    order: () => p.manyToOne(Order).mapToPk().primary().deleteRule('cascade'),
    packageId: p.uuid().primary(),
    companyId: p.uuid().index('company_order_lines_company_index'),
    activations: p.integer(),
    halalas: p.bigint('number'),
  },
});

/**
 * A counter per company raised in the same transaction as every change to the company's
 * company_charges or company_order_lines rows, at commit (the deferred trigger of migration
 * ChargeVersionsAtCommit, so its row lock is the transaction's last): two reads that see the same
 * version see the same charges and lines, so the billing service may reuse what it read.
 */
export const CompanyChargeVersion = defineEntity({
  name: 'CompanyChargeVersion',
  tableName: 'company_charge_versions',
  properties: {
    companyId: p.uuid().primary(),
    version: p.bigint('string'),
  },
});
