import type { PersonalDataCipher } from '../lib/crypto';
import type { PrincipalUser } from './sessions';

/** The user as sign-in answers it (verify-otp, magic-link): the account's identifiers, proven or not (never its claims). */
export function signInView(user: PrincipalUser, cipher: PersonalDataCipher) {
  return {
    id: user.id,
    phone: user.phoneEncrypted ? cipher.decrypt(user.phoneEncrypted) : null,
    name: user.name,
    email: user.emailEncrypted ? cipher.decrypt(user.emailEncrypted) : null,
    appRole: user.appRole,
    identityType: user.identityType,
  };
}

/** Profile, phone-change and /auth/me answers add isActive and createdAt. */
export function profileView(user: PrincipalUser, cipher: PersonalDataCipher) {
  return { ...signInView(user, cipher), isActive: user.isActive, createdAt: user.createdAt.toISOString() };
}

/** GET /auth/session adds the portal areas: only `admin` users carry them. */
export function sessionView(user: PrincipalUser, cipher: PersonalDataCipher) {
  const isAdmin = user.appRole === 'admin';
  return {
    ...profileView(user, cipher),
    managedAreas: isAdmin ? (user.managedAreas ?? []) : null,
    managedAreasWrite: isAdmin ? (user.managedAreasWrite ?? []) : null,
  };
}

export interface Identifiers {
  phone?: string;
  email?: string;
}
