/**
 * The payments area's face for what other areas read of it (issue 35, "one public face per area"): its
 * repository stays its own (and its settlement activities', activities/payments.ts).
 */
// A payments row as the webhook route and the settlement activities read it (src/webhooks/repository.ts).
export type { SettlementPayment } from './repository';
