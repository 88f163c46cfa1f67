import type { Db, Sql } from '../db/sql';
import { validationError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { findHolder, IdentifierTaken, nameIdentifier, proveIdentifier } from './identifiers';
import type { IssuedCode, OtpService } from './otp';
import { touchUser } from './repository';
import { profileView } from './users';

export interface EmailChangeDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  otp: OtpService;
}

const TAKEN = 'This e-mail is already registered';

/**
 * E-mail change: PUT /auth/me with a new address makes it the account's e-mail at once, unproven
 * (or a claim, while another account holds it unproven), and sends a code to it; POST
 * /auth/verify-change-email with that code proves it. The challenge is bound to the `change_email`
 * purpose, the caller and the address, so sign-in codes cannot complete it and its codes sign nobody in.
 */
export function createEmailChangeService(deps: EmailChangeDeps) {
  const { db, cipher, clock, otp } = deps;

  /** Inside PUT /auth/me's transaction; send the codes after commit. */
  async function request(tx: Sql, userId: string, newEmail: string): Promise<IssuedCode[]> {
    const holder = await findHolder(tx, cipher, 'email', newEmail);
    if (holder?.proven && holder.id !== userId) throw validationError([{ path: 'email', message: TAKEN }]);
    if (holder?.proven) return [];
    await otp.countRequest(tx, [newEmail]);
    await nameIdentifier(tx, cipher, userId, 'email', newEmail).catch((err: unknown) => {
      throw err instanceof IdentifierTaken ? validationError([{ path: 'email', message: TAKEN }]) : err;
    });
    return otp.createChallenge(tx, { purpose: 'change_email', userId, email: newEmail });
  }

  async function verify(userId: string, newEmail: string, code: string) {
    const proof = await otp.verify(db, { purposes: ['change_email'], email: newEmail, userId }, code);
    try {
      const user = await db.transaction(async (tx) => {
        const { user: row } = await proveIdentifier(tx, cipher, proof, 'change');
        await otp.consume(tx, proof); // after the accounts' locks, which the proof takes in id order
        await touchUser(tx, userId, clock());
        return row;
      });
      return profileView(user, cipher);
    } catch (err) {
      if (err instanceof IdentifierTaken) throw validationError([{ path: 'newEmail', message: TAKEN }]);
      throw err;
    }
  }

  return { request, verify };
}

export type EmailChangeService = ReturnType<typeof createEmailChangeService>;
