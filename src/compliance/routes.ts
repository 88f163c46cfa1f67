import type { Request } from 'express';
import { auditRequestContext } from '../audit/writer';
import { clearSessionCookie, sessionCookieHeader } from '../auth/middleware';
import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { z } from '../openapi/registry';
import type { AccountDeletion } from './deletion';
import type { UserExport } from './export';
import type { ComplianceReads } from './reads';
import * as s from './schemas';

export interface ComplianceRouteDeps {
  deletion: AccountDeletion;
  exports: UserExport;
  reads: ComplianceReads;
}

const requester = (userId: string, req: Request) => ({ userId, ...auditRequestContext(req) });

const ONLY_SUPER_ADMIN =
  'super_admin only; any other signed-in caller gets FORBIDDEN with status 401 (consumer spec, Authentication rule 5).';

/** Account deletion and the compliance routes (esim-store spec "Account deletion and compliance"). */
export function complianceRoutes(api: Api, deps: ComplianceRouteDeps): void {
  api.define(
    {
      method: 'post',
      path: '/auth/me/deletion-request',
      tag: 'Accounts',
      guard: guard.session,
      summary: 'Delete my account',
      description:
        'No body. At once: the account is deactivated (sign-in answers AUTH_ACCOUNT_DEACTIVATED), every session and token is revoked ' +
        '(this one too: it then answers AUTH_REQUIRED, and a web session’s cookie is cleared), pending activations are cancelled and ' +
        'unpaid store orders expire, and every activation gets deletionRequestedAt and retainUntil (now plus RETENTION_DAYS, default ' +
        '365). The phone and e-mail are released: a login by them answers AUTH_INVALID_OTP and a new registration may use them. A ' +
        'company seat frees nothing it drew. The personal data is erased at retainUntil.',
      response: json(s.DeletionRequestResponse, {
        status: 202,
        headers: [sessionCookieHeader('Web sessions only: clears the cookie (`activation-sys-session=; Max-Age=0; …`)')],
      }),
      errors: [],
    },
    async ({ principal, req, res }) => {
      const data = await deps.deletion.request(requester(principal.user.id, req));
      if (principal.clientType === 'web') clearSessionCookie(res);
      return { data };
    },
  );

  api.define(
    {
      method: 'get',
      path: '/admin/compliance/deletion-requests',
      tag: 'Compliance',
      guard: guard.compliance,
      summary: 'Accounts whose deletion was requested',
      description: `Newest request first, offset-paged; erasedAt is set once the personal data was erased. ${ONLY_SUPER_ADMIN}`,
      query: s.DeletionRequestListQuery,
      response: json(s.DeletionRequestList),
      errors: [],
    },
    ({ query }) => deps.reads.deletionRequests(query),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/compliance/users/:id/export',
      tag: 'Compliance',
      guard: guard.compliance,
      summary: 'Everything held about one person',
      description:
        'Profile, consents, activations, orders, payments, store orders, device acknowledgements, roster and company memberships ' +
        'and sessions, personal data decrypted (id numbers and issued eSIM profiles included), as one JSON document sent as ' +
        '`user-<id>.json`. No token, code or secret is included. Each export writes an audit row (`compliance.user_exported`, ' +
        `section counts only). ${ONLY_SUPER_ADMIN}`,
      params: s.UserParams,
      response: json(s.UserExportDocument, {
        headers: [
          { name: 'Content-Disposition', schema: z.string(), required: true, description: '`attachment; filename=user-<id>.json`' },
        ],
      }),
      errors: ['NOT_FOUND'],
    },
    async ({ params, principal, req, res }) => {
      const document = await deps.exports.exportUser(params.id, requester(principal.user.id, req));
      res.set('Content-Disposition', `attachment; filename=user-${document.userId}.json`);
      res.set('Cache-Control', 'private, no-store');
      return document;
    },
  );

  api.define(
    {
      method: 'post',
      path: '/admin/compliance/users/:id/erase',
      tag: 'Compliance',
      guard: guard.compliance,
      summary: 'Erase one person’s data now',
      description:
        'When the law requires it before retainUntil: name, phone, e-mail, id numbers and their keyed hashes are removed, the ' +
        'activations get deletedAt, and orders, payments, receipts and reconciliation records stay without personal data. An ' +
        'account whose deletion was not requested is deleted first (deactivated, sessions revoked, pending work cancelled). ' +
        'Audited with the reason (`compliance.user_erased`), never the erased values. Erasing an erased account answers its ' +
        `erasedAt. ${ONLY_SUPER_ADMIN}`,
      params: s.EraseParams,
      body: s.EraseBody,
      response: json(s.EraseResponse),
      errors: ['NOT_FOUND'],
    },
    async ({ params, body, principal, req }) => ({
      data: await deps.deletion.erase(params.id, { by: 'admin', actor: requester(principal.user.id, req), reason: body.reason }),
    }),
  );
}
