import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { Sql } from '../db/sql';
import { insertAuditEvent } from './repository';

/**
 * Audit rows are written by the use case, through the transaction handle (Tx) it holds, so a
 * row exists exactly when the change it records was committed. (Not a separate "audit service":
 * one function and one table.)
 */

export interface AuditEntry {
  /** `org.settings_updated`, `company.status_changed`, `company.roster_export`, … */
  action: `${string}.${string}`;
  /** Null for system actions. */
  actorUserId: string | null;
  companyId?: string | null;
  /** `organization_settings`, `company`, `quote`, `roster`, … */
  entityType: string;
  entityId?: string | null;
  /** Before/after values and counts. Never tokens, raw links, OTPs or contact data. */
  details?: Record<string, unknown>;
  ip?: string | null;
  userAgent?: string | null;
  /** Defaults to now; tests pass their clock. */
  at?: Date;
}

/** A company user acting on their company's data, and where from. */
export interface CompanyActor {
  userId: string;
  companyId: string;
  ip: string | null;
  userAgent: string | null;
}

/** A company export (people.csv, charges.csv): one row with the count of rows sent, never the rows. */
export function writeExportAudit(
  sql: Sql,
  actor: CompanyActor,
  what: { action: AuditEntry['action']; entityType: string; count: number; at: Date },
): Promise<string> {
  return writeAudit(sql, {
    action: what.action,
    actorUserId: actor.userId,
    companyId: actor.companyId,
    entityType: what.entityType,
    entityId: actor.companyId,
    details: { count: what.count },
    ip: actor.ip,
    userAgent: actor.userAgent,
    at: what.at,
  });
}

/** Keys that would mean a secret is about to be written; the rule is checked, not just documented. */
const FORBIDDEN_DETAIL_KEYS = new Set([
  'token',
  'tokenhash',
  'rawlink',
  'link',
  'url',
  'otp',
  'password',
  'secret',
  'cookie',
  'authorization',
]);

/** Inserts one audit row in the caller's transaction (or on its own) and returns its id. */
export async function writeAudit(sql: Sql, entry: AuditEntry): Promise<string> {
  const details = entry.details ?? {};
  assertNoSecrets(details, 'details');
  const id = randomUUID();
  await insertAuditEvent(sql, {
    id,
    action: entry.action,
    actorUserId: entry.actorUserId,
    companyId: entry.companyId ?? null,
    entityType: entry.entityType,
    entityId: entry.entityId ?? null,
    details,
    ip: entry.ip ?? null,
    userAgent: entry.userAgent ?? null,
    createdAt: entry.at ?? new Date(),
  });
  return id;
}

function assertNoSecrets(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertNoSecrets(item, `${path}[${i}]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (FORBIDDEN_DETAIL_KEYS.has(key.toLowerCase())) throw new Error(`audit ${path}.${key}: secrets and links are never audited`);
      assertNoSecrets(inner, `${path}.${key}`);
    }
  }
}

/** A client-supplied header is bounded before it is stored. */
const MAX_USER_AGENT = 512;

/**
 * The client's address (Express's `req.ip`, which honours X-Forwarded-For only from TRUST_PROXY)
 * and user agent, to spread into an AuditEntry.
 */
export function auditRequestContext(req: Request): { ip: string | null; userAgent: string | null } {
  const agent = req.get('user-agent');
  return { ip: req.ip ?? null, userAgent: agent ? agent.slice(0, MAX_USER_AGENT) : null };
}
