/**
 * The companies area's face: what other areas may use of it (issue 35, "one public
 * face per area"). Its repository stays its own (and its onboarding activities', activities/companies.ts);
 * these run in the caller's transaction (`sql` first).
 */
export {
  // A company's row (a seat's activation, a link mint, a roster assignment, a quote's checks).
  findCompany,
  hasActiveContract,
} from './repository';
