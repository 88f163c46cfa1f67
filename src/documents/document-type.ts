import type { Principal } from '../auth/sessions';
import type { Sql } from '../db/sql';
import type { Membership, StaffAccess } from '../http/guards';
import type { OrganizationSettings } from '../settings/organization';

/** The guard's own fresh readers (src/http/guards.ts), for types whose readers are not just an owner. */
export interface DocumentAccess {
  staffAccess(userId: string): Promise<StaffAccess | null>;
  membership(userId: string): Promise<Membership | null>;
}

/**
 * One kind of document. `load` answers null both for a missing entity and for one the caller may not
 * read (DOCUMENT_NOT_FOUND either way: a stranger learns nothing about which ids exist). `render` gets
 * the organization settings read for this render (null when never saved).
 */
export interface DocumentType<D> {
  /** Who may read it, for the route's OpenAPI description. */
  readers: string;
  load(sql: Sql, entityId: string, principal: Principal, access: DocumentAccess): Promise<D | null>;
  render(data: D, settings: OrganizationSettings | null): Promise<Buffer>;
  filename(data: D): string;
}
