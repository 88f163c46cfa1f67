/**
 * The links area's face: what other areas may use of it (issue 35, "one public face per area"). Its
 * repository stays its own; these run in the caller's transaction (`sql` first).
 */
export type { ContractLine } from './repository';
export {
  // Link liveness, the one rule the roster's and the activations' queries share.
  LIVE_LINK,
  REDEEMED_LINK,
  // A contract's lines with the people holding their seats (billing, a roster assignment).
  contractLines,
  // A link's redemption (POST /auth/magic-link: src/app.ts hands them to src/auth/magic-link.ts).
  findLinkByTokenHash,
  findLinkById,
  claimLink,
} from './repository';
