import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import type { IdentityType, SimType } from '../entities';
import { authenticate, principalOf } from '../auth/middleware';
import type { SessionService } from '../auth/sessions';
import { defineRoute } from '../http/route';
import { parsed } from '../http/validate';
import type { ActivationCreation } from './create';
import type { ActivationIdentity } from './identity';
import * as s from './schemas';

export interface ActivationRouteDeps {
  creation: ActivationCreation;
  identity: ActivationIdentity;
  sessions: SessionService;
}

/** validate-iccid, create, and identity verification of an activation. */
export function activationRoutes(registry: OpenAPIRegistry, deps: ActivationRouteDeps): Router {
  const router = Router();
  const auth = authenticate(deps.sessions);
  const tag = 'Activations';

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/activations/validate-iccid',
      tag,
      auth: 'public',
      summary: 'Check a serial with an operator',
      description:
        "A serial the operator refuses answers 200 `{ valid: false, error }`. The mock operator's outcomes are listed in the README.",
      query: s.ValidateIccidQuery,
      body: s.ValidateIccidBody,
      response: { status: 200, schema: s.ValidateIccidResponse },
      errors: [
        'VALIDATION_ERROR',
        'ACTIVATION_ESIM_DISABLED',
        'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR',
        'OPERATOR_NOT_FOUND',
        'ACTIVATION_ICCID_INVALID',
        'ACTIVATION_FAILED',
        'OPERATOR_UNAVAILABLE',
        'OPERATOR_TIMEOUT',
      ],
    },
    async (_req, res) => {
      const { operator } = parsed<{ operator: string }>(res, 'query');
      const { iccid, simType } = parsed<{ iccid: string; simType: SimType }>(res, 'body');
      res.json(await deps.creation.validateIccid(operator, iccid, simType));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/activations',
      tag,
      auth: 'session',
      summary: 'Create an activation (order, order item and activation in one transaction)',
      description:
        'SIM limits by identity type (citizen 10, resident 2, visitor 1) answer ACTIVATION_FAILED with `details.reason = SIM_LIMIT_EXCEEDED`; a serial already in a live activation `SERIAL_IN_USE`; a workflow that cannot start `WORKFLOW_UNAVAILABLE` (nothing is kept).',
      body: s.CreateActivationBody,
      response: { status: 201, schema: s.CreateActivationResponse },
      errors: [
        'VALIDATION_ERROR',
        'ACTIVATION_CODE_INVALID',
        'ACTIVATION_ICCID_INVALID',
        'ACTIVATION_ESIM_DISABLED',
        'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR',
        'ACTIVATION_FAILED',
        'NOT_FOUND',
        'AUTH_REQUIRED',
        'OPERATOR_UNAVAILABLE',
        'OPERATOR_TIMEOUT',
      ],
    },
    auth,
    async (_req, res) => {
      const body = parsed<{ iccid: string; packageId: string; simType: SimType }>(res, 'body');
      res.status(201).json(await deps.creation.create(principalOf(res).user.id, body));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'post',
      path: '/activations/:id/verify-identity',
      tag,
      auth: 'session',
      summary: 'Start national identity verification',
      description:
        'Allowed while the activation is `pending` and identity not yet completed. The workflow then polls the provider until a final status.',
      params: s.ActivationIdParams,
      body: s.VerifyIdentityBody,
      response: { status: 200, schema: s.VerifyIdentityResponse },
      errors: ['ACTIVATION_NOT_FOUND', 'IDENTITY_ERROR', 'AUTH_REQUIRED', 'VALIDATION_ERROR'],
    },
    auth,
    async (_req, res) => {
      const { id } = parsed<{ id: string }>(res, 'params');
      const body = parsed<{ identityType: IdentityType; idNumber: string }>(res, 'body');
      res.json(await deps.identity.start(principalOf(res).user.id, id, body));
    },
  );

  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/activations/:id/verify-identity',
      tag,
      auth: 'session',
      summary: 'Identity verification status',
      params: s.ActivationIdParams,
      response: { status: 200, schema: s.IdentityStatusResponse },
      errors: ['ACTIVATION_NOT_FOUND', 'IDENTITY_ERROR', 'AUTH_REQUIRED'],
    },
    auth,
    async (_req, res) => {
      res.json(await deps.identity.status(principalOf(res).user.id, parsed<{ id: string }>(res, 'params').id));
    },
  );

  return router;
}
