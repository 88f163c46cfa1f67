import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { PaymentService } from './service';
import * as s from './schemas';

export interface PaymentRouteDeps {
  payments: PaymentService;
}

const IDEMPOTENCY =
  'Amount, currency and user come from the order and the session, never from the body (unknown fields are a VALIDATION_ERROR). ' +
  'The same idempotencyKey with the same parameters answers the same payment; with different parameters ' +
  "PAYMENT_IDEMPOTENCY_CONFLICT with `details.existingPaymentId`. A failed payment answers the route's *_FAILED code with " +
  '`details.paymentId` (its receipt shows the failure) and `details.reason`. ' +
  'One live payment per order: while a payment of the order is `pending` or `processing`, a request with a new key that ' +
  'is otherwise the same (route, method, wallet token or mobile number) is answered with that payment (its status, ' +
  'clientSecret or redirectUrl), and any other request gets PAYMENT_ORDER_INVALID_STATUS with `details.reason` ' +
  '`payment_in_progress` and `details.paymentId` naming it; no second intent is created. A payment still waiting for ' +
  "its provider's answer is waited for up to 10 s first. The live payment stops holding the order when it settles, when the " +
  'processor reports its intent cancelled (it is then failed, reason `intent_canceled`), or when its request died before ' +
  'recording the answer (failed after 2 minutes, reason `abandoned`). Its age alone never frees the order: its intent ' +
  'can still be confirmed. The new key itself is not kept.';

const RECEIPT_LINK = {
  GetReceipt: {
    operationId: 'getPaymentsByIdReceipt',
    parameters: { id: '$response.body#/paymentId' },
    description: 'The receipt of this payment',
  },
};

/** create-intent, wallet-token, mobile-wallet and the receipt. */
export function paymentRoutes(api: Api, deps: PaymentRouteDeps): void {
  const tag = 'Payments';

  api.define(
    {
      method: 'post',
      path: '/payments/create-intent',
      tag,
      guard: guard.session,
      summary: 'Pay an order with a card-like method',
      description: `${IDEMPOTENCY} The local mock provider completes at once (status \`completed\`, order paid); a real processor answers \`processing\` and settles by its callback.`,
      body: s.CreateIntentBody,
      response: json(s.PaymentResult, { status: 201, links: RECEIPT_LINK }),
      errors: [
        'PAYMENT_INTENT_FAILED',
        'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
      ],
    },
    ({ body, principal }) => deps.payments.createIntent(principal.user.id, body),
  );

  api.define(
    {
      method: 'post',
      path: '/payments/wallet-token',
      tag,
      guard: guard.session,
      summary: 'Pay an order with a device wallet token',
      description: IDEMPOTENCY,
      body: s.WalletTokenBody,
      response: json(s.PaymentResult, { status: 201, links: RECEIPT_LINK }),
      // wallet_token is allowed for store orders; only the fail-closed external mode refuses it.
      errors: [
        'PAYMENT_WALLET_FAILED',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
      ],
    },
    ({ body, principal }) => deps.payments.walletToken(principal.user.id, body),
  );

  api.define(
    {
      method: 'post',
      path: '/payments/mobile-wallet',
      tag,
      guard: guard.session,
      summary: 'Start a mobile-wallet payment',
      description: `${IDEMPOTENCY} Answers \`processing\` with the URL where the customer approves; settlement follows asynchronously.`,
      body: s.MobileWalletBody,
      response: json(s.MobileWalletResult, { status: 201, links: RECEIPT_LINK }),
      errors: [
        'PAYMENT_MOBILE_WALLET_FAILED',
        'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
      ],
    },
    ({ body, principal }) => deps.payments.mobileWallet(principal.user.id, body),
  );

  api.define(
    {
      method: 'get',
      path: '/payments/:id/receipt',
      tag,
      guard: guard.session,
      summary: "Receipt of one of the caller's payments",
      description:
        "Owner only: another user's, unknown or non-uuid ids answer NOT_FOUND. A failed payment has status `failed`, paidAt null and a retry message; " +
        "a payment not yet completed carries a provisional receiptNumber (`PENDING-…` / `FAILED-…`). `amountSar` is the amount in the payment's own currency. " +
        'PAYMENT_RECEIPT_FAILED: the stored payment cannot back a truthful receipt (settled without receipt number or payment date).',
      params: s.PaymentIdParams,
      response: json(s.Receipt),
      errors: ['NOT_FOUND', 'PAYMENT_RECEIPT_FAILED'],
    },
    ({ params, principal }) => deps.payments.receipt(principal.user.id, params.id),
  );
}
