import { isDatabaseUnavailable, type Db } from '../db/sql';
import { AppError, validationError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { findHolder, IdentifierTaken, proveIdentifier } from './identifiers';
import type { OtpService } from './otp';
import { touchUser } from './repository';
import { profileView } from './users';

export interface PhoneChangeDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  otp: OtpService;
}

/**
 * Phone change in two steps. The challenge is bound to the `change_phone`
 * purpose, the caller and the new number, so sign-in codes cannot complete it
 * and its codes cannot sign anyone in.
 */
export function createPhoneChangeService(deps: PhoneChangeDeps) {
  const { db, cipher, clock, otp } = deps;

  async function request(userId: string, newPhone: string): Promise<void> {
    const issued = await db.transaction(async (tx) => {
      // Only a proven number has an owner; one that an account merely named can be proven here.
      const holder = await findHolder(tx, cipher, 'phone', newPhone);
      if (holder?.proven && holder.id === userId)
        throw validationError([{ path: 'newPhone', message: 'This is already your phone number' }]);
      if (holder?.proven) throw new AppError('AUTH_PHONE_EXISTS');
      await otp.countRequest(tx, [newPhone]);
      return otp.createChallenge(tx, { purpose: 'change_phone', userId, phone: newPhone });
    });
    await otp.send(issued);
  }

  /** The code proves the new number; it replaces the old one (taking it from an account that only named it). */
  async function verify(userId: string, newPhone: string, code: string) {
    const proof = await otp.verify(db, { purposes: ['change_phone'], phone: newPhone, userId }, code);
    try {
      const user = await db.transaction(async (tx) => {
        const { user: row } = await proveIdentifier(tx, cipher, proof, 'change');
        await otp.consume(tx, proof); // after the accounts' locks, which the proof takes in id order
        await touchUser(tx, userId, clock());
        return row;
      });
      return profileView(user, cipher);
    } catch (err) {
      if (err instanceof AppError || isDatabaseUnavailable(err)) throw err;
      if (err instanceof IdentifierTaken) throw new AppError('AUTH_PHONE_EXISTS');
      throw new AppError('AUTH_PHONE_UPDATE_FAILED');
    }
  }

  return { request, verify };
}

export type PhoneChangeService = ReturnType<typeof createPhoneChangeService>;
