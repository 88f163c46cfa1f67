// What the quote negotiation workflow shares with its callers: its id, its updates and query, their
// payloads and the spec's "Quote status" table. Pure: the API (src/quotes/), the worker, activities
// and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export type QuoteStatusValue = 'draft' | 'submitted' | 'under_review' | 'countered' | 'accepted' | 'rejected' | 'expired';

/** One run per quote chain, started when the company creates the chain's first (draft) version. */
export const quoteWorkflowId = (chainRootId: string) => `quote:${chainRootId}`;

/** Display-only reference of a chain: `Q-` plus the first 12 hex characters of the root's id. */
export const quoteRef = (chainRootId: string) => `Q-${chainRootId.replace(/-/g, '').slice(0, 12)}`;

/** The chain's actionable version: the one without a child. */
export interface QuoteTip {
  versionId: string;
  version: number;
  status: QuoteStatusValue;
  /** parentId null: written by the company; non-null: an admin's counter. */
  companyAuthored: boolean;
}

export interface QuoteWorkflowInput {
  chainRootId: string;
  companyId: string;
  tip: QuoteTip;
  /** Handled actions after which the run continues as new; default QUOTE_ACTIONS_PER_RUN. */
  continueAsNewAfter?: number;
}

export const QUOTE_ACTIONS_PER_RUN = 500;

/** Who acts, for the rows' stamps and the audit row. */
export interface QuoteActor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/** Every action names the version the caller saw; only the tip may be acted on. */
export interface QuoteActionRequest {
  versionId: string;
  actor: QuoteActor;
}

export interface QuoteLine {
  packageId: string;
  qty: number;
}

export interface CounterRequest extends QuoteActionRequest {
  /** 1-200 lines, packages already checked against the live B2B catalog by the route. */
  items: QuoteLine[];
  /** Up to 500 characters; the new version's reviewer note. */
  note: string | null;
}

export interface NoteRequest extends QuoteActionRequest {
  /** Up to 500 characters; absent leaves the stored note untouched (company decline: companyNote; admin reject: note). */
  note?: string;
}

/** The version an action left as the tip (a counter's new version), as stored. */
export interface QuoteActionResult {
  versionId: string;
  status: QuoteStatusValue;
}

export interface ConfirmContractResult extends QuoteActionResult {
  contractId: string;
}

/** draft → submitted (company admin; at least one persisted item unless needs.fundingSar is set). */
export const submitUpdate = defineUpdate<QuoteActionResult, [QuoteActionRequest]>('submit');
/** submitted → under_review (internal admin; stamps reviewedBy and reviewedAt). */
export const startReviewUpdate = defineUpdate<QuoteActionResult, [QuoteActionRequest]>('startReview');
/** submitted or under_review → countered, plus a new admin-authored version under_review (one transaction). */
export const counterUpdate = defineUpdate<QuoteActionResult, [CounterRequest]>('counter');
/** Admin-authored under_review → accepted (company admin). */
export const acceptUpdate = defineUpdate<QuoteActionResult, [QuoteActionRequest]>('accept');
/** Admin-authored under_review → rejected (company admin; reason in companyNote; audit `company.quote_decline`). */
export const declineUpdate = defineUpdate<QuoteActionResult, [NoteRequest]>('decline');
/** draft, submitted or under_review → rejected (internal admin; note replaces note; audit `company.quote_reject`). */
export const rejectUpdate = defineUpdate<QuoteActionResult, [NoteRequest]>('reject');
/** accepted, or company-authored submitted / under_review → accepted, plus the company's contract. */
export const confirmContractUpdate = defineUpdate<ConfirmContractResult, [QuoteActionRequest]>('confirmContract');

export type QuoteAction = 'submit' | 'startReview' | 'counter' | 'accept' | 'decline' | 'reject' | 'confirmContract';

/**
 * The spec's table as a check on the tip: may `action` be taken on a tip in this state? Company
 * accept and decline also need the tip to be admin-authored; confirm needs a company-authored
 * submitted / under_review tip, or an accepted one. The validator applies it before anything is written.
 */
export function allowed(action: QuoteAction, tip: QuoteTip): boolean {
  switch (action) {
    case 'submit':
      return tip.status === 'draft';
    case 'startReview':
      return tip.status === 'submitted';
    case 'counter':
      return tip.status === 'submitted' || tip.status === 'under_review';
    case 'accept':
    case 'decline':
      return tip.status === 'under_review' && !tip.companyAuthored;
    case 'reject':
      return tip.status === 'draft' || tip.status === 'submitted' || tip.status === 'under_review';
    case 'confirmContract':
      return tip.status === 'accepted' || (tip.companyAuthored && (tip.status === 'submitted' || tip.status === 'under_review'));
  }
}

export interface QuoteWorkflowState {
  chainRootId: string;
  companyId: string;
  tip: QuoteTip;
}

export const quoteStateQuery = defineQuery<QuoteWorkflowState>('quoteState');

// Refusals are ApplicationFailures whose type is the spec's code (src/temporal/update.ts maps them):
// QUOTE_INVALID_STATE, QUOTE_VERSION_SUPERSEDED (accept / decline on a version that is not the tip),
// QUOTE_NOT_FOUND, CONTRACT_ALREADY_EXISTS, CONTRACT_PACKAGE_PRICE_MISSING (details { packageId }),
// QUOTE_COUNTER_FAILED and CONTRACT_CREATE_FAILED (the write failed for another reason).

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const QUOTE_WORKFLOW_TYPE = 'quoteNegotiationWorkflow';
export type QuoteNegotiationWorkflow = (input: QuoteWorkflowInput) => Promise<void>;
