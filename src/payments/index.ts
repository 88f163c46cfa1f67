/**
 * The payments area's face for what other areas read of it (issue 35, "one public face per area"): its
 * repository stays its own (and its settlement activities', activities/payments.ts).
 */
// A payments row as the webhook route and the settlement activities read it (src/webhooks/repository.ts).
export type { SettlementPayment } from './repository';
// The status of a mock mobile-wallet payment, for its development approval page (src/webhooks/mock-wallet.ts).
export { findMockWalletPaymentStatus } from './repository';
