/**
 * The messages area's face: what other areas and the activities may use of it (issue 35, "one public
 * face per area"). Its repository stays its own; this runs in the caller's transaction.
 */
export type { HandOver } from './repository';
// Keeps a message for the outbox relay (a store order's profile e-mail, activities/store-orders.ts).
export { handOver } from './repository';
