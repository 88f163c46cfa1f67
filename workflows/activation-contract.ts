// What the activation workflow shares with its callers: its id, its signal, update and query,
// their payloads, and the failure types activities throw at it. Pure: the API (src/temporal/),
// the worker, activities and tests import it, and it imports nothing of theirs back.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
// Type-only (erased at build): the entity file derives these unions from the arrays its columns use.
import type { ActivationStatus, IdentityStatus, SimType } from '../src/entities/activation';
import type { IdentityType } from '../src/entities/user';

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

export const orderPaidSignal = defineSignal<[{ paymentId: string }]>('orderPaid');
/** Refused with IDENTITY_ERROR (a spec code: the client helper turns it into that AppError). */
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

/** ApplicationFailure types shared with activities (and, for IDENTITY_ERROR, the API). */
export const OPERATOR_REJECTION = 'OperatorRejection';
export const IDENTITY_ERROR = 'IDENTITY_ERROR';
