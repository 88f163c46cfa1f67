import { auditRequestContext } from '../audit/writer';
import { guard } from '../http/guards';
import { file, json, type Api } from '../http/route';
import { ReadinessResponse } from '../companies/schemas';
import type { ContractPayments } from './payments';
import * as s from './schemas';
import type { ContractReads } from './service';

export interface ContractAdminRouteDeps {
  reads: ContractReads;
  payments: ContractPayments;
}

/** Internal administration of contracts and their payments (/admin/contracts/...). */
export function contractAdminRoutes(api: Api, deps: ContractAdminRouteDeps): void {
  const tag = 'Administration: contracts';
  const { reads, payments } = deps;

  api.define(
    {
      method: 'get',
      path: '/admin/contracts/company/:companyId',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'A company’s active contract',
      description: 'Null when the company has none, or is unknown.',
      params: s.CompanyIdParams,
      response: json(s.MaybeContractResponse),
      errors: [],
    },
    async ({ params }) => ({ data: await reads.activeContract(params.companyId) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/contracts/company/:companyId/readiness',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'A company’s readiness to send links',
      description: 'The same figures as GET /b2b/readiness; an unknown company answers all false.',
      params: s.CompanyIdParams,
      response: json(ReadinessResponse),
      errors: [],
    },
    async ({ params }) => ({ data: await reads.readiness(params.companyId) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/contracts/company/:companyId/balance',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'A company’s drawdown balance',
      description:
        'The flexible contract’s ledger: funded (payments recorded), drawn (the company’s paid orders whose activation is ' +
        'still alive), committed (seats consumed without a live charge yet; advisory), available (funded − drawn) and the ' +
        'live activated lines per package. No active contract, a prepaid contract or an unknown company answer zeros and ' +
        'no lines, not 404; `paymentMode` is then the contract’s, else the company’s picked mode (prepaid if none).',
      params: s.CompanyIdParams,
      response: json(s.BalanceResponse),
      errors: [],
    },
    async ({ params }) => ({ data: await reads.balance(params.companyId) }),
  );

  api.define(
    {
      method: 'post',
      path: '/admin/contracts/:id/payments',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Record a manual payment',
      description:
        'Bank transfer or cheque, with its proof file (pdf, png or jpeg, at most 5 MB decoded). The body limit of this ' +
        'route alone is 7 MB (a bigger body: VALIDATION_ERROR). Codes by what is wrong with the document: its form (missing, ' +
        'empty, not canonical base64) VALIDATION_ERROR; decoded over 5 MB CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE; a mime other ' +
        'than the three, or bytes that are not a file of the declared kind, CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME. ' +
        'Prepaid: every payment is at least the contract total (less: CONTRACT_PAYMENT_BELOW_TOTAL, nothing recorded); a ' +
        'later payment of at least the total is recorded like the first. Flexible: any positive amount, the first funding and ' +
        'every top-up. CONTRACT_PAYMENT_MODE_INVALID is not produced: both modes take payments. The same idempotencyKey on ' +
        'the contract with the same method and amount answers the original record (201); with another method or amount ' +
        'CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT ' +
        '(`details.existingPaymentId`). Audited as `company.contract_payment_recorded` (name, kind and size of the proof, ' +
        'never its bytes); the company’s run then re-reads its readiness.',
      params: s.ContractIdParams,
      body: s.RecordPaymentBody,
      bodyOptions: { limit: s.PAYMENT_BODY_LIMIT },
      response: json(s.ContractPaymentResponse, { status: 201 }),
      errors: [
        'CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME',
        'CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE',
        'CONTRACT_NOT_FOUND',
        'CONTRACT_PAYMENT_BELOW_TOTAL',
        'CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT',
      ],
    },
    async ({ params, body, principal, req }) => ({
      data: await payments.record({ userId: principal.user.id, ...auditRequestContext(req) }, params.id, body),
    }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/contracts/:id/payments',
      tag,
      guard: guard.staff('b2b', 'view'),
      summary: 'A contract’s payments',
      description: 'Newest first, each with the recording administrator’s name; an unknown contract answers an empty array.',
      params: s.ContractListParams,
      response: json(s.ContractPaymentList),
      errors: [],
    },
    async ({ params }) => ({ data: await reads.payments(params.id) }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/contracts/:id/payments/:paymentId/document',
      tag,
      guard: guard.staff('b2b', 'manage'),
      summary: 'Download a payment’s proof file',
      description:
        'The stored bytes with their stored mime as Content-Type. An unknown contract or payment, or a payment of another ' +
        'contract: CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND.',
      params: s.PaymentDocumentParams,
      response: file(s.DOCUMENT_MIMES, 'The proof file as recorded'),
      errors: ['CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND'],
    },
    ({ params }) => reads.paymentDocument(params.id, params.paymentId),
  );
}
