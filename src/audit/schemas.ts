import { chars, Uuid } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';

export const AuditEventListQuery = z.strictObject({
  ...offsetParams,
  action: chars(1, 100).optional().openapi({ description: 'Only this action, e.g. `org.settings_updated` (exact)' }),
  companyId: Uuid.optional().openapi({ description: 'Only rows about this company' }),
  entityType: chars(1, 100).optional().openapi({ description: 'Only rows about this kind of entity, e.g. `user`, `company`' }),
  entityId: chars(1, 200).optional().openapi({ description: 'Only rows about this entity id (with `entityType`, one entity)' }),
});

export const AuditEvent = z
  .object({
    id: z.uuid(),
    action: z.string().openapi({ description: '`<entity>.<verb>`, e.g. `admin_user.created`, `org.settings_updated`' }),
    actorUserId: z.uuid().nullable().openapi({ description: 'Who did it; null for system actions or a removed actor' }),
    companyId: z.uuid().nullable(),
    entityType: z.string(),
    entityId: z.string().nullable(),
    details: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Before/after values and counts; never a token, OTP, raw link or document bytes' }),
    ip: z.string().nullable().openapi({ description: 'The client address (TRUST_PROXY decides whose X-Forwarded-For counts)' }),
    userAgent: z.string().nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('AuditEvent');

export const AuditEventList = offsetPage('AuditEventList', 'events', AuditEvent);
