/**
 * The quotes area's face: what other areas may use of it (issue 35, "one public face per area"). Its
 * repository stays its own (and its negotiation activities', activities/quotes.ts); this runs in the
 * caller's transaction (`sql` first).
 */
// The B2B price of packages still in the B2B catalog (a link mint's, a roster assignment's).
export { catalogPrices } from './repository';
