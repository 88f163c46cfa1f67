import { PAYMENT_MODES } from '../entities';
import { ActiveLine } from '../contracts/schemas';
import { z } from '../openapi/registry';

// --- GET /b2b/dashboard ----------------------------------------------------------------------------

/**
 * What an activity entry says happened to a link, read from the link row: its mint (by how it was
 * handed out), its redemption, and where it ended (failed delivery, revoked, past its expiry).
 */
export const ACTIVITY_KINDS = [
  'link_sent',
  'link_exported',
  'link_issued',
  'link_used',
  'link_failed',
  'link_revoked',
  'link_expired',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const DashboardActivity = z
  .object({
    kind: z.enum(ACTIVITY_KINDS).openapi({
      description:
        '`link_sent` (minted and handed to e-mail and/or SMS, at its creation), `link_exported` (minted as a raw link by export ' +
        'or reissue-expired, at its creation), `link_issued` (minted with no channel recorded), `link_used` (redeemed, at the ' +
        'redemption), `link_failed` (delivery failed), `link_revoked` (revoked; at the link’s last change), `link_expired` ' +
        '(an unredeemed link reached its expiry, lazy expiry included; at the expiry)',
    }),
    personName: z.string().openapi({ description: 'The person’s name only: no phone, e-mail, id number or identity type' }),
    at: z.iso.datetime(),
  })
  .openapi('DashboardActivity');

export const Dashboard = z
  .object({
    hasLaunched: z.boolean().openapi({ description: 'A link was ever minted for the company' }),
    stats: z.object({
      invitesSent30d: z.number().int().openapi({ description: 'Links minted (send or export) in the last 30 days' }),
      activated: z.number().int().openapi({ description: 'Persons whose latest link is `used`' }),
      pending: z
        .number()
        .int()
        .openapi({ description: 'Persons whose latest link is live (issued, sent or exported) and not past expiry' }),
      failed: z.number().int().openapi({ description: 'Persons whose latest link is `failed` (delivery failed)' }),
    }),
    activity: z.array(DashboardActivity).openapi({ description: 'The 8 most recent link events, newest first' }),
  })
  .openapi('Dashboard');
export const DashboardResponse = z.object({ data: Dashboard }).openapi('DashboardResponse');

// --- GET /b2b/billing ------------------------------------------------------------------------------

const Sar = (description: string) => z.number().openapi({ description: `SAR (JSON number, 2 decimals at most). ${description}` });

export const BillingPayment = z
  .object({
    id: z.uuid(),
    documentName: z.string().openapi({ description: 'The proof file’s name (its bytes are never exposed here)' }),
    amountSar: Sar(''),
    recordedByName: z.string().nullable().openapi({ description: 'The administrator who recorded it (null once that user is gone)' }),
    recordedAt: z.iso.datetime(),
  })
  .openapi('BillingPayment');

export const BillingCharge = z
  .object({
    date: z.iso.datetime().openapi({ description: 'When the order was placed (a company order is charged as it is created)' }),
    personName: z.string(),
    packageName: z.string().openapi({ description: 'The package’s English catalog name' }),
    amountSar: Sar('The order’s total'),
    paymentId: z.uuid().nullable().openapi({ description: 'The order’s completed payment, if any' }),
  })
  .openapi('BillingCharge');

export const Billing = z
  .object({
    mode: z
      .enum(PAYMENT_MODES)
      .openapi({ description: 'The active contract’s mode; with none, the company’s picked mode (prepaid if unpicked)' }),
    outstandingSar: Sar('Σ charges: the company’s paid orders whose activation is still alive (both modes); exactly Σ charges[].amountSar'),
    accruedThisMonthSar: Sar('Σ charges dated in the current UTC calendar month'),
    contractTotalSar: Sar('The active contract’s total (prepaid: its lines; flexible: the declared funding)'),
    paidSar: Sar('Σ payments recorded on the active contract (flexible: the funded total)'),
    availableSar: Sar('Flexible: paidSar − outstandingSar; null for prepaid').nullable(),
    activeLines: z.array(ActiveLine).openapi({ description: 'Flexible: one entry per package with a live activated line; prepaid: empty' }),
    latestPayment: BillingPayment.nullable().openapi({ description: 'The newest entry of payments, or null' }),
    payments: z.array(BillingPayment).openapi({ description: 'Payments recorded on the active contract, newest first' }),
    linesDrawn: z
      .object({
        consumed: z
          .number()
          .int()
          .openapi({ description: 'Prepaid: seats consumed on the contract’s lines (link used, or live); flexible 0' }),
        total: z.number().int().openapi({ description: 'Prepaid: Σ qty of the contract’s lines; flexible 0' }),
      })
      .openapi({ description: 'Prepaid seats drawn' }),
    charges: z.array(BillingCharge).openapi({ description: 'One per live charge (order), newest first' }),
  })
  .openapi('Billing');
export type BillingBody = z.input<typeof Billing>;
export const BillingResponse = z.object({ data: Billing }).openapi('BillingResponse');
