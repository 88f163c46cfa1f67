import type { ClientType, UserRow } from '../entities';

/** The caller's user row as the session check reads it: its identifiers, never its claims or their proof state. */
export type PrincipalUser = Omit<
  UserRow,
  'pendingPhoneEncrypted' | 'pendingPhoneHash' | 'pendingEmailEncrypted' | 'pendingEmailHash' | 'phoneProven' | 'emailProven'
>;

/** What an authenticated request knows about its caller (src/auth/sessions.ts makes it, src/auth/session-cache.ts keeps it; the guards and the route definer hand it to handlers). */
export interface Principal {
  sessionId: string;
  clientType: ClientType;
  expiresAt: Date;
  token: string;
  user: PrincipalUser;
}
