import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { ActivationCreation } from './create';
import type { ActivationIdentity } from './identity';
import * as s from './schemas';

export interface ActivationRouteDeps {
  creation: ActivationCreation;
  identity: ActivationIdentity;
}

/** validate-iccid, create, and identity verification of an activation. */
export function activationRoutes(api: Api, deps: ActivationRouteDeps): void {
  const tag = 'Activations';

  api.define(
    {
      method: 'post',
      path: '/activations/validate-iccid',
      tag,
      guard: guard.public,
      summary: 'Check a serial with an operator',
      description:
        "A serial the operator refuses answers 200 `{ valid: false, error }`. The mock operator's outcomes are listed in docs/demo.md.",
      query: s.ValidateIccidQuery,
      body: s.ValidateIccidBody,
      response: json(s.ValidateIccidResponse),
      errors: [
        'ACTIVATION_ESIM_DISABLED',
        'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR',
        'OPERATOR_NOT_FOUND',
        'ACTIVATION_ICCID_INVALID',
        'ACTIVATION_FAILED',
        'OPERATOR_UNAVAILABLE',
        'OPERATOR_TIMEOUT',
      ],
    },
    ({ query, body }) => deps.creation.validateIccid(query.operator, body.iccid, body.simType),
  );

  api.define(
    {
      method: 'post',
      path: '/activations',
      tag,
      guard: guard.session,
      summary: 'Create an activation (order, order item and activation in one transaction)',
      description:
        'SIM limits by identity type (citizen 10, resident 2, visitor 1) answer ACTIVATION_FAILED with `details.reason = SIM_LIMIT_EXCEEDED`; ' +
        'a serial already in a live activation `SERIAL_IN_USE`. The workflow is started after the commit; when Temporal cannot take ' +
        'the start, the create still answers 201 and the worker starts the workflow as soon as Temporal answers. ' +
        'An unknown or inactive package answers NOT_FOUND. ' +
        'With an `Idempotency-Key` header (optional), a repeat of the same request answers the first 201 again, whatever happened since; ' +
        'the same key with another body answers ACTIVATION_FAILED with `details.reason = IDEMPOTENCY_KEY_REUSED`. ' +
        "Company branch: a caller with a company roster entry activates their seat. The package must be the seat's (prepaid: the assigned " +
        'contract line; flexible: the roster package at its mint-time price), the link redeemed, the company approved, no pending, ' +
        'in-progress or activated SIM held (a failed or cancelled one may retry), physical SIMs only; flexible seats need funded minus ' +
        'drawn to cover the price. The order lands `paid` with a completed corporate payment (method `company_account`, provider `company`) ' +
        'and the workflow starts already paid; the SIM limit at create does not apply to a seat (one seat, one SIM).',
      headers: s.CreateActivationHeaders,
      body: s.CreateActivationBody,
      response: json(s.CreateActivationResponse, {
        status: 201,
        links: {
          GetActivationStatus: {
            operationId: 'getActivationsByIdStatus',
            parameters: { id: '$response.body#/activationId' },
            description: 'The new activation: its status',
          },
          GetIdentityStatus: {
            operationId: 'getActivationsByIdVerifyIdentity',
            parameters: { id: '$response.body#/activationId' },
            description: 'Its identity verification status',
          },
          StartIdentityVerification: {
            operationId: 'postActivationsByIdVerifyIdentity',
            parameters: { id: '$response.body#/activationId' },
            description: 'Start its identity verification',
          },
          PayOrder: {
            operationId: 'postPaymentsCreateIntent',
            requestBody: { orderId: '$response.body#/orderId' },
            description: 'Pay its order',
          },
        },
      }),
      errors: [
        'ACTIVATION_CODE_INVALID',
        'ACTIVATION_ICCID_INVALID',
        'ACTIVATION_ESIM_DISABLED',
        'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR',
        'ACTIVATION_FAILED',
        'NOT_FOUND',
        'COMPANY_NOT_APPROVED',
        'ACTIVATION_PACKAGE_NOT_ON_CONTRACT',
        'ACTIVATION_LINK_NOT_REDEEMED',
        'ACTIVATION_SEAT_ALREADY_USED',
        'COMPANY_BALANCE_EXCEEDED',
        'OPERATOR_UNAVAILABLE',
        'OPERATOR_TIMEOUT',
      ],
    },
    ({ body, headers, principal }) => deps.creation.create(principal.user.id, body, headers['Idempotency-Key']),
  );

  api.define(
    {
      method: 'post',
      path: '/activations/:id/verify-identity',
      tag,
      guard: guard.session,
      summary: 'Start national identity verification',
      description:
        'Owner only. Allowed while the activation is `pending` and identity not yet completed. The workflow then polls the provider until a final status.',
      params: s.ActivationIdParams,
      body: s.VerifyIdentityBody,
      response: json(s.VerifyIdentityResponse),
      errors: ['ACTIVATION_NOT_FOUND', 'IDENTITY_ERROR'],
    },
    ({ params, body, principal }) => deps.identity.start(principal.user.id, params.id, body),
  );

  api.define(
    {
      method: 'get',
      path: '/activations/:id/verify-identity',
      tag,
      guard: guard.session,
      summary: 'Identity verification status',
      description: 'Owner only.',
      params: s.ActivationIdParams,
      response: json(s.IdentityStatusResponse),
      errors: ['ACTIVATION_NOT_FOUND', 'IDENTITY_ERROR'],
    },
    ({ params, principal }) => deps.identity.status(principal.user.id, params.id),
  );
}
