/**
 * The companies area's face: what other areas and src/temporal/ may use of it (issue 35, "one public
 * face per area"). Its repository stays its own (and its onboarding activities', activities/companies.ts);
 * these run in the caller's transaction (`sql` first).
 */
export {
  // A company's row (a seat's activation, a link mint, a roster assignment, a quote's checks).
  findCompany,
  hasActiveContract,
  // What the onboarding run's client side reads before it asks the run (src/temporal/companies.ts).
  statusAndChanges,
} from './repository';
