import type { MikroORM } from '@mikro-orm/postgresql';
import { User } from '../entities';
import { AppError, validationError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { IdentifierTaken, proveIdentifier } from './identifiers';
import type { OtpService } from './otp';
import { profileView } from './users';

export interface PhoneChangeDeps {
  orm: MikroORM;
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
  const { orm, cipher, clock, otp } = deps;

  async function request(userId: string, newPhone: string): Promise<void> {
    const issued = await orm.em.fork().transactional(async (em) => {
      const owner = await em.findOne(User, { phoneHash: cipher.lookupHash(newPhone) });
      if (owner?.id === userId) throw validationError([{ path: 'newPhone', message: 'This is already your phone number' }]);
      if (owner) throw new AppError('AUTH_PHONE_EXISTS');
      await otp.countRequest(em, [newPhone]);
      return otp.createChallenge(em, { purpose: 'change_phone', userId, phone: newPhone });
    });
    await otp.send(issued);
  }

  /** The code proves the new number; it replaces the old one (and settles a registration's unproven claim). */
  async function verify(userId: string, newPhone: string, code: string) {
    const proof = await otp.verify(orm.em.fork(), { purposes: ['change_phone'], phone: newPhone, userId }, code);
    try {
      const user = await orm.em.fork().transactional(async (em) => {
        const owner = await em.findOne(User, { phoneHash: cipher.lookupHash(newPhone) });
        if (owner && owner.id !== userId) throw new AppError('AUTH_PHONE_EXISTS');
        const row = await proveIdentifier(em, cipher, proof, 'change');
        row.updatedAt = clock();
        return row;
      });
      return profileView(user, cipher);
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof IdentifierTaken) throw new AppError('AUTH_PHONE_EXISTS');
      throw new AppError('AUTH_PHONE_UPDATE_FAILED');
    }
  }

  return { request, verify };
}

export type PhoneChangeService = ReturnType<typeof createPhoneChangeService>;
