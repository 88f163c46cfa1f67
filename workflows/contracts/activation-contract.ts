// What the activation workflow shares with its callers: its id, its signal, update and query,
// their payloads, and the failure types activities throw at it. Pure: the API (src/activations/runs-temporal.ts),
// the worker, activities and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
// Type-only (erased at build): the entity file derives these unions from the arrays its columns use.
import type { ActivationStatus, IdentityStatus, SimType } from '../../src/entities/activation';
import type { IdentityType } from '../../src/entities/user';

/** One run per activation, ever (the client starts it with reject-duplicate). */
export const activationWorkflowId = (activationId: string) => `activation:${activationId}`;

/** Timers of one activation, all from configuration. */
export interface ActivationTimers {
  /** Cancel an activation still unpaid or unverified after this long. */
  cancelAfterMs: number;
  /** How often the identity provider is asked about a running verification. */
  identityPollIntervalMs: number;
  /** A verification request not final after this long reads `expired`. */
  identityRequestTtlMs: number;
  /** Safety net for a lost "order paid" signal: how often the order row is checked. */
  paidCheckIntervalMs?: number;
}

export interface ActivationWorkflowInput {
  activationId: string;
  simType: SimType;
  timers: ActivationTimers;
  /** Company seats land paid (synthetic corporate payment). */
  paid?: boolean;
  /** Whether this namespace has our search attributes (the Java test server does not need them). */
  searchAttributes?: boolean;
}

export interface VerifyIdentityInput {
  identityType: IdentityType;
  idNumber: string;
}

export interface VerifyIdentityResult {
  transId: string;
  randomCode: string;
  status: IdentityStatus;
}

export interface ActivationState {
  status: ActivationStatus;
  identityStatus: IdentityStatus;
  paid: boolean;
}

/**
 * A verification the API started at the provider and recorded (src/activations/identity.ts), delivered
 * through the signal relay: the run polls it. `attempt` orders them (a repeat, or an older one delivered
 * late, changes nothing). Its lifetime (identityRequestTtlMs) counts from delivery: the provider's own
 * `expired` answer ends one that lapsed at its side while Temporal was away.
 */
export interface IdentityStarted {
  transId: string;
  attempt: number;
}

export const orderPaidSignal = defineSignal<[{ paymentId: string }]>('orderPaid');
export const identityStartedSignal = defineSignal<[IdentityStarted]>('identityStarted');
/**
 * The way verifications started before the API called the provider itself: kept for runs an API of the
 * previous release still sends it to during a deploy; retire with that release. Refused with
 * IDENTITY_ERROR (a spec code: the client helper turns it into that AppError).
 */
export const verifyIdentityUpdate = defineUpdate<VerifyIdentityResult, [VerifyIdentityInput]>('verifyIdentity');
export const stateQuery = defineQuery<ActivationState>('state');

/**
 * What a SIM-limit gate decided (src/activations/sim-limit.ts): recordIdentityStatus when a
 * verification completes, startHandoff before the operator call. A refusal has already been
 * written (activation `failed` with failedReason, an unpaid order cancelled); the run just ends.
 */
export type SimLimitVerdict = { withinLimit: true } | { withinLimit: false; failedReason: string };

/**
 * patched() ids of the SIM-limit gates. Runs whose history passed these points before the gates
 * existed replay the old way; new runs, and old runs reaching the points after the deploy, take the gates.
 */
export const SIM_LIMIT_AT_VERIFICATION_PATCH = 'sim-limit-at-verification';
export const SIM_LIMIT_AT_HANDOFF_PATCH = 'sim-limit-at-handoff';

/**
 * patched() id of the handoff's gate in the workflow task (startHandoff as a local activity). Runs that
 * passed the gate before it replay the activity task they recorded.
 */
export const LOCAL_HANDOFF_PATCH = 'handoff-as-local-activity';

/**
 * patched() ids of the stranded-run fixes (issue 11). Runs recorded before them replay the old way:
 * - IDENTITY_POLL_PATCH: a status poll retries provider outages with backoff until the activation's
 *   deadline, and is abandoned when a newer verification supersedes it or the deadline passes;
 * - FINAL_STATUS_PATCH: the deadline takes a last look at the order, every exit writes a final status
 *   (a last-resort handler records `failed`, or `cancelled` when the run is cancelled), and a cancelled
 *   order's open processor intents are cancelled.
 */
export const IDENTITY_POLL_PATCH = 'identity-poll-until-deadline';
export const FINAL_STATUS_PATCH = 'final-status-on-every-exit';

/** `failedReason` of an activation that ended without a provider's reason. */
export const ACTIVATION_END_REASONS = {
  /** The deadline passed without a completed verification (paid or not). */
  identityNotCompleted: 'IDENTITY_NOT_COMPLETED_IN_TIME',
  /** The deadline passed verified but unpaid. */
  notPaid: 'NOT_PAID_IN_TIME',
  /** Support cancelled the run (temporal workflow cancel). */
  cancelledBySupport: 'CANCELLED_BY_SUPPORT',
  /** The run failed for a reason nobody expected (the last-resort handler). */
  internalError: 'INTERNAL_ERROR',
} as const;
export type ActivationEndReason = (typeof ACTIVATION_END_REASONS)[keyof typeof ACTIVATION_END_REASONS];

/** What a final status did (endActivation). */
export interface ActivationEnd {
  /** The row's status afterwards: `paid` answers leave it as it was. */
  status: ActivationStatus;
  /** `unlessPaid` was asked and the order is paid: nothing was changed, the run proceeds as paid. */
  paid: boolean;
}

/**
 * `details.reason` of an IDENTITY_ERROR whose cause is the provider being unreachable or too slow (the
 * person may retry); a refusal by the provider has no details.
 */
export const IDENTITY_PROVIDER_UNAVAILABLE = 'IDENTITY_PROVIDER_UNAVAILABLE';

/** ApplicationFailure types shared with activities (and, for IDENTITY_ERROR, the API). */
export const OPERATOR_REJECTION = 'OperatorRejection';
export const IDENTITY_ERROR = 'IDENTITY_ERROR';

/**
 * The workflow as its client side starts it: by type name, typed by its signature (workflows/index.ts
 * exports the implementation; test/unit/workflow-contracts.test.ts holds the two together), so the API
 * never imports workflow code.
 */
export const ACTIVATION_WORKFLOW_TYPE = 'activationWorkflow';
export type ActivationWorkflow = (input: ActivationWorkflowInput) => Promise<ActivationStatus>;

/** What a run starts from (the activation's pending start, src/workflow-starts). */
export interface StartActivation {
  activationId: string;
  userId: string;
  orderId: string;
  simType: SimType;
  paid?: boolean;
  /** A company seat's company: its run is then found by CompanyId next to the company's and quotes' runs. */
  companyId?: string | null;
  /** The payment that paid the order before the run started (a seat's corporate payment): found by PaymentId, as a paid consumer run is. */
  paymentId?: string | null;
  /** What is left of the cancel deadline (a run started late keeps the deadline of its creation); default: the whole of it. */
  cancelAfterMs?: number;
}

/** What the pending start stores: the create's ids and options (the deadline is computed when it starts). */
export type ActivationStartArgs = Omit<StartActivation, 'cancelAfterMs'>;
