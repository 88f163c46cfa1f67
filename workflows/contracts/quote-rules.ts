// The check every quote action passes before anything is written, against the chain's tip: the
// negotiation workflow's validators, the API's answer for a finished chain and the tests' fake run
// apply this same rule. Pure and deterministic (the worker bundles it).
import { allowed, type QuoteAction, type QuoteTip } from './quote-contract';

/** The spec codes an action refuses with (ApplicationFailure types; src/temporal/update.ts maps them to AppErrors). */
export const QUOTE_REFUSAL_CODES = [
  'QUOTE_NOT_FOUND',
  'QUOTE_INVALID_STATE',
  'QUOTE_VERSION_SUPERSEDED',
  'QUOTE_COUNTER_FAILED',
  'CONTRACT_ALREADY_EXISTS',
  'CONTRACT_PACKAGE_PRICE_MISSING',
  'CONTRACT_CREATE_FAILED',
] as const;
export type QuoteRefusalCode = (typeof QUOTE_REFUSAL_CODES)[number];

export type QuoteTipRefusal = 'QUOTE_INVALID_STATE' | 'QUOTE_VERSION_SUPERSEDED';

/**
 * Why `action` on `versionId` is refused, or null when it may go ahead: a version that is not the tip
 * is QUOTE_VERSION_SUPERSEDED for the company's accept and decline (the spec names it for them) and
 * QUOTE_INVALID_STATE for every other action; on the tip, the status table (allowed()) decides.
 */
export function tipRefusal(action: QuoteAction, tip: QuoteTip, versionId: string): { type: QuoteTipRefusal; message: string } | null {
  if (versionId !== tip.versionId) {
    const superseded = action === 'accept' || action === 'decline';
    return {
      type: superseded ? 'QUOTE_VERSION_SUPERSEDED' : 'QUOTE_INVALID_STATE',
      message: `version ${versionId} is not the chain's live version (v${tip.version})`,
    };
  }
  if (!allowed(action, tip)) {
    const author = tip.companyAuthored ? 'company-authored' : 'admin-authored';
    return { type: 'QUOTE_INVALID_STATE', message: `cannot ${action} a ${author} ${tip.status} version` };
  }
  return null;
}
