import type { Logger } from 'pino';
import { membershipOf } from '../companies/membership';
import type { Db } from '../db/sql';
import { AppError } from '../http/errors';
import { isUuid, PathId } from '../http/fields';
import { staffAccessOf } from '../auth';
import { guard } from '../http/guards';
import { file, type Api } from '../http/route';
import { z } from '../openapi/registry';
import { readOrganizationSettings } from '../settings/organization';
import { documentType, documentTypes, type DocumentAccess, type DocumentRegistry } from './registry';

export interface DocumentRouteDeps {
  db: Db;
  logger: Pick<Logger, 'error'>;
  /** Default: every registered type (tests inject a failing renderer). */
  types?: DocumentRegistry;
}

export const PDF = 'application/pdf';

/** GET /documents/:type/:entityId.pdf: generated documents (consumer spec "PDF documents", b2b spec "Admin: settings"). */
export function documentRoutes(api: Api, deps: DocumentRouteDeps): void {
  const types = deps.types ?? documentTypes;
  const access: DocumentAccess = { staffAccess: staffAccessOf(deps.db), membership: membershipOf(deps.db) };

  api.define(
    {
      method: 'get',
      path: '/documents/:type/:entityId.pdf',
      tag: 'Documents',
      guard: guard.session,
      summary: 'Download a generated document (PDF receipt)',
      description: [
        'A bilingual (English and Arabic) payment receipt rendered on request, with the organization settings read on every ' +
          'render: seller header and support footer when settings exist, the VAT-included line only when showVatOnReceipts is on ' +
          'and a VAT number is set. Always titled a payment receipt, always marked as not a tax invoice.',
        `Types and who may read them: ${Object.values(types)
          .map((t) => t.readers)
          .join(' ')}`,
        'Anyone else gets DOCUMENT_NOT_FOUND, exactly as for a missing entity or an id that is not a UUID.',
        'Answered as an attachment (`receipt-<receipt number>.pdf`), never cached.',
      ].join('\n\n'),
      params: z.object({
        type: z.string().openapi({ description: `Document type: ${Object.keys(types).join(', ')}; any other is DOCUMENT_TYPE_NOT_FOUND` }),
        entityId: PathId,
      }),
      response: file([PDF], 'The PDF document'),
      errors: ['DOCUMENT_TYPE_NOT_FOUND', 'DOCUMENT_NOT_FOUND', 'DOCUMENT_RENDER_FAILED'],
    },
    async ({ params, principal, res }) => {
      const type = documentType(types, params.type);
      if (!type) throw new AppError('DOCUMENT_TYPE_NOT_FOUND');
      if (!isUuid(params.entityId)) throw new AppError('DOCUMENT_NOT_FOUND');
      const data = await type.load(deps.db, params.entityId, principal, access);
      if (data === null) throw new AppError('DOCUMENT_NOT_FOUND');
      const settings = await readOrganizationSettings(deps.db);
      let bytes: Buffer;
      try {
        bytes = await type.render(data, settings);
      } catch (err) {
        deps.logger.error({ err, documentType: params.type, entityId: params.entityId }, 'document render failed');
        throw new AppError('DOCUMENT_RENDER_FAILED');
      }
      res.set('Cache-Control', 'private, no-store');
      return { bytes, contentType: PDF, filename: type.filename(data) };
    },
  );
}
