import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { authenticate, principalOf } from '../auth/middleware';
import type { SessionService } from '../auth/sessions';
import { defineRoute } from '../http/route';
import { parsed } from '../http/validate';
import type { PaymentService } from './service';
import * as s from './schemas';

export interface PaymentRouteDeps {
  payments: PaymentService;
  sessions: SessionService;
}

const IDEMPOTENCY =
  'Amount, currency and user come from the order and the session, never from the body (unknown fields are a VALIDATION_ERROR). ' +
  'The same idempotencyKey with the same parameters answers the same payment; with different parameters ' +
  "PAYMENT_IDEMPOTENCY_CONFLICT with `details.existingPaymentId`. A failed payment answers the route's *_FAILED code with " +
  '`details.paymentId` (its receipt shows the failure) and `details.reason`.';

/** create-intent, wallet-token, mobile-wallet and the receipt. */
export function paymentRoutes(registry: OpenAPIRegistry, deps: PaymentRouteDeps): Router {
  const router = Router();
  const auth = authenticate(deps.sessions);
  const tag = 'Payments';

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/payments/create-intent',
      tag,
      auth: 'session',
      summary: 'Pay an order with a card-like method',
      description: `${IDEMPOTENCY} The local mock provider completes at once (status \`completed\`, order paid); a real processor answers \`processing\` and settles by its callback.`,
      body: s.CreateIntentBody,
      response: { status: 201, schema: s.PaymentResult },
      errors: [
        'PAYMENT_INTENT_FAILED',
        'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
        'AUTH_REQUIRED',
        'VALIDATION_ERROR',
      ],
    },
    auth,
    async (_req, res) => {
      res.status(201).json(await deps.payments.createIntent(principalOf(res).user.id, parsed(res, 'body')));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/payments/wallet-token',
      tag,
      auth: 'session',
      summary: 'Pay an order with a device wallet token',
      description: IDEMPOTENCY,
      body: s.WalletTokenBody,
      response: { status: 201, schema: s.PaymentResult },
      // wallet_token is allowed for store orders; only the fail-closed external mode refuses it.
      errors: [
        'PAYMENT_WALLET_FAILED',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
        'AUTH_REQUIRED',
        'VALIDATION_ERROR',
      ],
    },
    auth,
    async (_req, res) => {
      res.status(201).json(await deps.payments.walletToken(principalOf(res).user.id, parsed(res, 'body')));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/payments/mobile-wallet',
      tag,
      auth: 'session',
      summary: 'Start a mobile-wallet payment',
      description: `${IDEMPOTENCY} Answers \`processing\` with the URL where the customer approves; settlement follows asynchronously.`,
      body: s.MobileWalletBody,
      response: { status: 201, schema: s.MobileWalletResult },
      errors: [
        'PAYMENT_MOBILE_WALLET_FAILED',
        'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER',
        'STORE_PROVIDER_PAYMENT_EXTERNAL',
        'PAYMENT_IDEMPOTENCY_CONFLICT',
        'PAYMENT_ORDER_INVALID_STATUS',
        'ORDER_NOT_FOUND',
        'AUTH_REQUIRED',
        'VALIDATION_ERROR',
      ],
    },
    auth,
    async (_req, res) => {
      res.status(201).json(await deps.payments.mobileWallet(principalOf(res).user.id, parsed(res, 'body')));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/payments/:id/receipt',
      tag,
      auth: 'session',
      summary: "Receipt of one of the caller's payments",
      description:
        "Owner only: another user's, unknown or non-uuid ids answer NOT_FOUND. A failed payment has status `failed`, paidAt null and a retry message; " +
        "a payment not yet completed carries a provisional receiptNumber (`PENDING-…` / `FAILED-…`). `amountSar` is the amount in the payment's own currency. " +
        'PAYMENT_RECEIPT_FAILED: the stored payment cannot back a truthful receipt (settled without receipt number or payment date).',
      params: s.PaymentIdParams,
      response: { status: 200, schema: s.Receipt },
      errors: ['NOT_FOUND', 'PAYMENT_RECEIPT_FAILED', 'AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      res.json(await deps.payments.receipt(principalOf(res).user.id, parsed<{ id: string }>(res, 'params').id));
    },
  );

  return router;
}
