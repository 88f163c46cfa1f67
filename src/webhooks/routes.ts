import type { Logger } from 'pino';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import type { Config } from '../config';
import type { Db } from '../db/sql';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { z } from '../openapi/registry';
import { createCardProcessorWebhook } from './card-processor';
import type { PartnerCallbackSource, StoreOrderReconciliation } from '../store/callbacks';
import { createEsimProviderWebhook, EsimProviderAck, EsimProviderCallback } from './esim-provider';

export interface WebhookRouteDeps {
  db: Db;
  logger: Logger;
  config: Pick<
    Config,
    'CARD_PROCESSOR_WEBHOOK_SECRET' | 'CARD_PROCESSOR_WEBHOOK_TOLERANCE_SECONDS' | 'ESIM_PROVIDER_PUBLIC_KEY' | 'ESIM_PROVIDER_MERCHANT_ID'
  >;
  /** The store-order side of eSIM callbacks (src/store/callbacks.ts: a pending signal to the order's run). */
  storeOrders: StoreOrderReconciliation;
  /** The store partner's own signed callbacks, told apart by their header (STORE_PROVIDER=http); none with the mocks. */
  partners?: readonly PartnerCallbackSource[];
  /** Sends the signals a callback wrote once its receipt commits (src/workflow-signals). */
  signals?: WorkflowSignals;
  clock?: () => Date;
}

export const CARD_PROCESSOR_PATH = '/webhooks/card-processor';
export const ESIM_PROVIDER_PATH = '/webhooks/esim-provider';

// --- Documented bodies ---------------------------------------------------------------------------------

const CardProcessorAck = z
  .object({
    received: z.literal(true),
    ignored: z.literal(true).optional().openapi({ description: 'An event type we do not handle, or an event naming no payment of ours' }),
  })
  .openapi('CardProcessorAck');

const CardProcessorEvent = z
  .object({
    id: z.string().openapi({ example: 'evt_1Nabc' }),
    type: z.string().openapi({ example: 'payment_intent.succeeded' }),
    data: z.object({
      object: z
        .object({
          id: z.string().openapi({ example: 'pi_1Nabc' }),
          status: z.string().openapi({ example: 'succeeded' }),
          amount: z.int().openapi({ description: 'Integer minor units', example: 4900 }),
          amount_received: z.int().openapi({ example: 4900 }),
          currency: z.string().openapi({ example: 'sar' }),
          metadata: z.object({ payment_id: z.uuid(), order_id: z.uuid(), user_id: z.uuid() }),
          last_payment_error: z.object({ message: z.string() }).nullable().optional(),
        })
        .openapi({ description: 'The PaymentIntent (fields read by the service; others are ignored)' }),
    }),
  })
  .openapi('CardProcessorEvent', { description: "The processor's event object, signed as raw bytes: send it exactly as signed." });

const PROCESSOR_SIGNATURE =
  'The raw body is verified before it is parsed: `Processor-Signature: t=<unix seconds>,v1=<hex>` where ' +
  'each v1 is HMAC-SHA256 of `<t>.<raw body>` with the endpoint secret (several v1 values allowed, e.g. during secret ' +
  'rotation; one must match, compared in constant time). `t` must be within the tolerance (default 300 s) of our clock, ' +
  'in either direction.';

const CARD_PROCESSOR_DESCRIPTION = [
  PROCESSOR_SIGNATURE,
  '`payment_intent.succeeded` is checked against the stored payment (status `succeeded`; currency upper-cased equals the ' +
    "payment's; `amount` and `amount_received` equal the payment amount in integer minor units; metadata `payment_id`, " +
    '`order_id`, `user_id` present and matching). A match goes to the payment settlement workflow, which completes ' +
    'the payment (receipt number), marks the order paid and tells the activation. A mismatch completes nothing: a ' +
    'reconciliation record is written and the payment fails with PAYMENT_PROVIDER_AMOUNT_MISMATCH if still `processing`, ' +
    'and the answer is 200 once the record is written. `payment_intent.payment_failed` and `payment_intent.canceled` fail ' +
    'an open payment; a completed payment is never downgraded. Other types, and events naming no payment of ours, answer ' +
    '`ignored: true`.',
  'Acknowledgement is immediate; settlement is asynchronous: an event that can still change the payment is written to ' +
    'an inbox (one row per event id, so a redelivery is harmless) and acknowledged, and handed to the settlement workflow ' +
    'from there, in order per payment, also when the workflow engine was away at the time. WEBHOOK_SIGNATURE_MISSING: no ' +
    'or empty header; WEBHOOK_SIGNATURE_INVALID: no v1 matches, timestamp outside the tolerance, malformed header, body ' +
    'changed; VALIDATION_ERROR: signed, but not JSON or not an event we can read. A 500 asks the processor to redeliver: ' +
    'PAYMENT_MISMATCH_RECORD_FAILED when a mismatch could not be recorded, INTERNAL_ERROR when the event could not be kept.',
].join('\n\n');

const ESIM_PROVIDER_DESCRIPTION =
  'Delayed or identity-check order completion callbacks. The body is validated, then `signature` is ' +
  'verified (RSA-SHA256, PKCS#1 v1.5, over `<orderId>.<merchantId>.<providerName>` with the configured provider key) and ' +
  '`merchantId` compared with ours. A minimal receipt per (orderId, status) is kept and the order is handed to a read-only ' +
  'reconciliation. A repeated (orderId, status) answers 200 with `duplicate: true`. A valid callback for an unknown order ' +
  'answers 200 (kept as a receipt). Activation credentials in the body (QR, LPA) are never stored. WEBHOOK_SIGNATURE_MISSING: ' +
  'no `signature`; WEBHOOK_SIGNATURE_INVALID: signature not base64 or not valid for the signed fields, or another merchant.\n\n' +
  'With a wholesale partner configured (STORE_PROVIDER=http), a request carrying its `partner-signature` header is that ' +
  "partner's own callback instead: the hex HMAC-SHA512 of the raw body with our client secret is checked before the body " +
  'is parsed (WEBHOOK_SIGNATURE_MISSING when empty, WEBHOOK_SIGNATURE_INVALID when it does not match), the body must name ' +
  'our order in `description` (or `data.description`; VALIDATION_ERROR otherwise), and the same receipt and reconciliation ' +
  'follow; nothing else in its body is used.';

/**
 * The signature header as the document states it (required). The route reads it leniently, so a
 * missing one answers the spec's WEBHOOK_SIGNATURE_MISSING rather than a VALIDATION_ERROR.
 */
const SignatureHeader = z.object({
  'Processor-Signature': z
    .string()
    .optional()
    .openapi({
      description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`',
      example: 't=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
      param: { required: true },
    }),
});

// --- Routes ----------------------------------------------------------------------------------

/** A request header as one string (Node joins a repeated custom header; a list is joined the same way). */
const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/** Both webhooks: outside the per-IP limit, on raw bytes (each signature covers the exact body), parsed by their handlers. */
export function webhookRoutes(api: Api, deps: WebhookRouteDeps): void {
  const cardProcessor = createCardProcessorWebhook({
    db: deps.db,
    logger: deps.logger,
    secret: deps.config.CARD_PROCESSOR_WEBHOOK_SECRET,
    toleranceSeconds: deps.config.CARD_PROCESSOR_WEBHOOK_TOLERANCE_SECONDS,
    clock: deps.clock,
  });
  const esimProvider = createEsimProviderWebhook({
    db: deps.db,
    logger: deps.logger,
    publicKey: deps.config.ESIM_PROVIDER_PUBLIC_KEY,
    merchantId: deps.config.ESIM_PROVIDER_MERCHANT_ID,
    reconciliation: deps.storeOrders,
    partners: deps.partners,
    signals: deps.signals,
    clock: deps.clock,
  });

  // A processor redelivering a burst from one address must not be locked out: signed callbacks skip the per-IP limit.
  api.define(
    {
      method: 'post',
      path: CARD_PROCESSOR_PATH,
      tag: 'Webhooks',
      guard: guard.public,
      rateLimit: false,
      summary: 'Card processor events',
      description: CARD_PROCESSOR_DESCRIPTION,
      headers: SignatureHeader,
      body: { raw: true, schema: CardProcessorEvent, limit: '256kb' },
      response: json(CardProcessorAck, { description: 'Received' }),
      errors: ['WEBHOOK_SIGNATURE_MISSING', 'WEBHOOK_SIGNATURE_INVALID', 'PAYMENT_MISMATCH_RECORD_FAILED'],
      errorNotes: { 500: 'Redeliver' },
    },
    ({ body, headers }) => cardProcessor.receive(body, headers['Processor-Signature']),
  );

  api.define(
    {
      method: 'post',
      path: ESIM_PROVIDER_PATH,
      tag: 'Webhooks',
      guard: guard.public,
      rateLimit: false,
      summary: 'eSIM provider order callbacks',
      description: ESIM_PROVIDER_DESCRIPTION,
      // Raw bytes, whatever Content-Type says: a partner's HMAC covers the exact body (the spec's is parsed after).
      body: { raw: true, schema: EsimProviderCallback, limit: '64kb' },
      response: json(EsimProviderAck, { description: 'Received' }),
      errors: ['WEBHOOK_SIGNATURE_MISSING', 'WEBHOOK_SIGNATURE_INVALID', 'SERVICE_UNAVAILABLE'],
      errorNotes: { 503: 'The reconciliation handoff failed; nothing was kept; redeliver' },
    },
    ({ body, req }) => esimProvider.receiveRaw(body, (name) => headerText(req.headers[name])),
  );
}
