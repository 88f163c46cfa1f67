// What the company onboarding workflow shares with its callers: its id, its update, signal and
// query, their payloads, and the status table. Pure: the API (src/companies/, roster staging),
// the worker, activities and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** One long-lived run per company, started in the request that registers the company. */
export const companyWorkflowId = (companyId: string) => `company:${companyId}`;

export const COMPANY_STATUS_VALUES = ['pending', 'approved', 'rejected', 'suspended'] as const;
export type CompanyStatusValue = (typeof COMPANY_STATUS_VALUES)[number];

export const COMPANY_ACTIONS = ['approve', 'reject', 'suspend', 'reactivate'] as const;
export type CompanyAction = (typeof COMPANY_ACTIONS)[number];

/** The spec's "Company status" table: from → action → to. Any other pair is COMPANY_INVALID_TRANSITION. */
export const COMPANY_TRANSITIONS: Record<CompanyAction, { from: CompanyStatusValue; to: CompanyStatusValue }> = {
  approve: { from: 'pending', to: 'approved' },
  reject: { from: 'pending', to: 'rejected' },
  suspend: { from: 'approved', to: 'suspended' },
  reactivate: { from: 'suspended', to: 'approved' },
};

/** The status after `action` from `from`, or null when the table has no such row. */
export function transitionOf(from: CompanyStatusValue, action: CompanyAction): CompanyStatusValue | null {
  const row = COMPANY_TRANSITIONS[action];
  return row.from === from ? row.to : null;
}

export interface CompanyWorkflowInput {
  companyId: string;
  /** The status the company row has when the run starts (pending at registration; carried across continue-as-new). */
  status: CompanyStatusValue;
  /** Carried across continue-as-new; absent at registration (all false). */
  readiness?: Readiness;
  /** Carried across continue-as-new; absent at registration (0). */
  canSendLinksFlips?: number;
  /**
   * Handled events (status changes, readiness recomputes, notices) after which the run continues as
   * new even if the server has not suggested it yet; default COMPANY_EVENTS_PER_RUN. Tests set it low.
   */
  continueAsNewAfter?: number;
  /** How long an approved company's run waits without a readiness signal before it reads readiness anyway; default READINESS_RECHECK_MS. */
  readinessRecheckMs?: number;
}

/**
 * Readiness signals are best effort (a change commits even when Temporal is away), so an approved
 * company's run also rereads readiness after this long without one: a lost signal delays a
 * canSendLinks notice by at most this much, never forever.
 */
export const READINESS_RECHECK_MS = 6 * 3600_000;

/** A run keeps its history short: about 10 history events per handled event, far below the server's limits. */
export const COMPANY_EVENTS_PER_RUN = 500;

/**
 * patched() id: a run woken by a status change alone (suspend, reactivate) waits again instead of
 * continuing as new, so it keeps the change's update id and answers a repeat of it (src/temporal/update.ts).
 * Runs that passed such a wake before the patch replay the way they went: they continued as new.
 */
export const STATUS_WAKE_PATCH = 'status-wake-keeps-run';

/** An administrator's status action, with what its audit row records. */
export interface StatusChangeRequest {
  action: CompanyAction;
  actorUserId: string;
  /** Up to 500 characters; recorded in the audit row only. */
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface StatusChangeResult {
  from: CompanyStatusValue;
  to: CompanyStatusValue;
}

/**
 * Validated against the workflow's status before anything is written: a refused action fails the
 * update with ApplicationFailure type 'COMPANY_INVALID_TRANSITION', details [{ from, action }]
 * (src/temporal/update.ts maps it to the API error). Updates are taken one at a time.
 */
export const changeStatusUpdate = defineUpdate<StatusChangeResult, [StatusChangeRequest]>('changeStatus');

/** The four readiness booleans of GET /b2b/readiness. */
export interface Readiness {
  contractConfirmed: boolean;
  paymentSatisfied: boolean;
  rosterStaged: boolean;
  canSendLinks: boolean;
}

/** Which gate may have moved; the workflow recomputes all of readiness from the database either way. */
export type ReadinessGate = 'rosterStaged' | 'contractConfirmed' | 'paymentSatisfied';

/** Sent after the change commits (roster staged now; contract and payment with the quotes issue). */
export const readinessChangedSignal = defineSignal<[{ gate: ReadinessGate }]>('readinessChanged');

export interface CompanyWorkflowState {
  status: CompanyStatusValue;
  readiness: Readiness;
  /** How many times canSendLinks flipped from false to true (one notice each). */
  canSendLinksFlips: number;
}

export const companyStateQuery = defineQuery<CompanyWorkflowState>('companyState');

/** The bilingual notices the run sends to the company's portal admins (best effort). */
export type CompanyNotice = 'approved' | 'ready_to_send_links';

/** One message of a notice: each admin gets an e-mail and an SMS, where they have that contact. */
export interface NoticeDelivery {
  userId: string;
  channel: 'email' | 'sms';
}

/** ApplicationFailure type of a company row that does not exist (a spec code: COMPANY_NOT_FOUND 404). */
export const COMPANY_NOT_FOUND = 'COMPANY_NOT_FOUND';
/** ApplicationFailure type of a refused status action (a spec code: COMPANY_INVALID_TRANSITION 409, details { from, action }). */
export const COMPANY_INVALID_TRANSITION = 'COMPANY_INVALID_TRANSITION';

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const COMPANY_WORKFLOW_TYPE = 'companyOnboardingWorkflow';
export type CompanyOnboardingWorkflow = (input: CompanyWorkflowInput) => Promise<void>;
