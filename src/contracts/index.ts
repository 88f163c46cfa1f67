/**
 * The contracts area's face: what other areas and the activities may use of it (issue 35, "one public
 * face per area"). Its repositories stay its own; everything here runs in the caller's transaction
 * (`sql` first), because a use case elsewhere (a link mint, a seat's activation, billing, a quote's
 * acceptance) reads or writes contracts inside the transaction it owns.
 */
export type { ContractDbRow, ContractKey } from './repository';
export type { PaymentDbRow } from './payments-repository';
export {
  // The contract of a company or by id, its view, and the mode a company without one picked.
  findContract,
  readContract,
  pickedMode,
  // The flexible ledger's figures (balance.ts): drawn and committed against paid.
  drawnHalalas,
  committedHalalas,
  // Seat consumption, the one rule the link queries share (src/links/repository.ts).
  SEAT_CONSUMED,
  CONSUMED_SEATS,
  // A quote's acceptance writes its contract (activities/quotes.ts).
  contractOfQuote,
  insertContract,
  insertContractItems,
} from './repository';
export { paidHalalas, listPayments } from './payments-repository';
