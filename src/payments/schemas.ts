import { PAYMENT_ROW_METHODS, PAYMENT_STATUSES } from '../entities';
import { chars, nonEmpty, PathId, Uuid } from '../http/fields';
import { z } from '../openapi/registry';

/** The four methods of POST /payments/create-intent (wallet token and mobile wallet have their own routes). */
export const INTENT_METHODS = ['local_debit', 'card_scheme_1', 'card_scheme_2', 'generic_processor'] as const;
export type IntentMethod = (typeof INTENT_METHODS)[number];

const OrderId = Uuid.openapi({ description: 'An order of the caller in `pending_payment`' });
const IdempotencyKey = chars(8, 128, 'idempotencyKey must be 8-128 characters').openapi({
  description: 'Same key and same parameters return the same payment; scoped to the caller',
});

// Strict bodies: amount, currency and user are never accepted, so an unknown field is a VALIDATION_ERROR.
export const CreateIntentBody = z
  .strictObject({ orderId: OrderId, method: z.enum(INTENT_METHODS), idempotencyKey: IdempotencyKey })
  .openapi('CreatePaymentIntentRequest');

export const WalletTokenBody = z
  .strictObject({
    orderId: OrderId,
    walletToken: nonEmpty('walletToken must not be empty').openapi({ description: 'Token from the device wallet sheet' }),
    idempotencyKey: IdempotencyKey,
  })
  .openapi('WalletTokenPaymentRequest');

export const MOBILE_NUMBER = /^05\d{8}$/;
export const MobileWalletBody = z
  .strictObject({
    orderId: OrderId,
    mobileNumber: z.string().regex(MOBILE_NUMBER, 'mobileNumber must be 05 followed by 8 digits').openapi({ example: '0512345678' }),
    idempotencyKey: IdempotencyKey,
  })
  .openapi('MobileWalletPaymentRequest');

const Status = z.enum(PAYMENT_STATUSES);

export const PaymentResult = z
  .object({
    paymentId: z.uuid(),
    status: Status.openapi({
      description: '`completed` with the local mock provider; `processing` with a real provider awaiting its callback',
    }),
    clientSecret: z.string(),
    gatewayTransactionId: z.string(),
  })
  .openapi('PaymentResult');

export const MobileWalletResult = z
  .object({
    paymentId: z.uuid(),
    status: Status.openapi({ description: '`processing` when created; a replay answers the current status' }),
    gatewayTransactionId: z.string(),
    redirectUrl: z.string().openapi({ description: 'Where the customer approves the payment' }),
  })
  .openapi('MobileWalletPaymentResult');

/** Any string: a non-uuid id answers NOT_FOUND like an unknown one. */
export const PaymentIdParams = z.object({ id: PathId });

export const Receipt = z
  .object({
    receiptNumber: z
      .string()
      .openapi({ description: '`RCP-<yyyymmdd>-<8 hex>` once completed; `PENDING-<8>` or `FAILED-<8>` (start of the payment id) before' }),
    paymentId: z.uuid(),
    orderId: z.uuid(),
    amountSar: z.number().openapi({ description: "Historical name: the amount in the payment's own `currency`" }),
    currency: z.string(),
    method: z.enum(PAYMENT_ROW_METHODS).openapi({
      description:
        "A request's method, or `company_account`: the order of a company seat, paid by the company's account (never a request method)",
    }),
    status: Status,
    paidAt: z.iso.datetime().nullable(),
    messageEn: z.string(),
    messageAr: z.string(),
  })
  .openapi('Receipt');
