import type { ClientType } from '../entities';
import type { SessionCheck } from './repository';

/** The caller's user row as the session check reads it: its identifiers, never its claims or their proof state. */
export type PrincipalUser = SessionCheck['user'];

/** What an authenticated request knows about its caller (sessions.ts makes it, session-cache.ts keeps it). */
export interface Principal {
  sessionId: string;
  clientType: ClientType;
  expiresAt: Date;
  token: string;
  user: PrincipalUser;
}
