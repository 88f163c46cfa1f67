import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import type { ReconciliationService } from './service';
import * as s from './schemas';

export interface ReconciliationRouteDeps {
  reconciliation: ReconciliationService;
}

const WHAT =
  'Reconciliation records are money support must act on: PAYMENT_REFUND_REQUIRED (an activation was cancelled or failed after ' +
  'its payment was taken, or a payment succeeded after its order was cancelled: refund it at the processor), ' +
  'PAYMENT_DUPLICATE_CHARGE (a second payment for an order already paid: refund it), PAYMENT_PROVIDER_AMOUNT_MISMATCH (the ' +
  'processor reported a success that does not match the payment: check it). super_admin only: refunds concern every area.';

/** Support's list of reconciliation records and their resolution (audited). */
export function reconciliationRoutes(api: Api, deps: ReconciliationRouteDeps): void {
  const tag = 'Administration';
  const { reconciliation } = deps;

  api.define(
    {
      method: 'get',
      path: '/admin/reconciliation-records',
      tag,
      guard: guard.superAdmin,
      summary: 'List reconciliation records',
      description: `Newest first, offset-paged; open records only unless \`status\` says otherwise. ${WHAT}`,
      query: s.ReconciliationListQuery,
      response: json(s.ReconciliationRecordList),
      errors: [],
    },
    async ({ query }) => reconciliation.list(query),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/reconciliation-records/:id/resolve',
      tag,
      guard: guard.superAdmin,
      summary: 'Resolve a reconciliation record',
      description:
        'Marks the record resolved with a note (what was done, e.g. the refund id), with an audit row in the same transaction. ' +
        'A record already resolved is answered as it was resolved, unchanged (its `resolvedBy` and `note` are the first ' +
        `resolution's), and nothing more is audited. ${WHAT}`,
      params: s.ReconciliationRecordParams,
      body: s.ResolveReconciliationBody,
      response: json(s.ReconciliationRecordResponse),
      errors: ['NOT_FOUND'],
    },
    async ({ params, body, principal, req }) => ({
      data: await reconciliation.resolve({ userId: principal.user.id, ...auditRequestContext(req) }, params.id, body.note),
    }),
  );
}
