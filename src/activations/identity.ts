import type { Sql } from '../db/sql';
import type { IdentityType } from '../entities';
import { AppError } from '../http/errors';
import type { ActivationRuns } from './runs';
import { isUuid } from '../http/fields';
import { findOwnedIdentity, type OwnedIdentity } from './repository';

export interface IdentityDeps {
  db: Sql;
  runs: ActivationRuns;
}

/** Identity verification of an activation: started through the workflow, read from Postgres. */
export function createActivationIdentity(deps: IdentityDeps) {
  async function owned(userId: string, activationId: string): Promise<OwnedIdentity> {
    if (!isUuid(activationId)) throw new AppError('ACTIVATION_NOT_FOUND');
    const row = await findOwnedIdentity(deps.db, userId, activationId);
    if (!row) throw new AppError('ACTIVATION_NOT_FOUND');
    return row;
  }

  async function start(userId: string, activationId: string, input: { identityType: IdentityType; idNumber: string }) {
    const row = await owned(userId, activationId);
    if (row.status !== 'pending') throw new AppError('IDENTITY_ERROR');
    try {
      return await deps.runs.verifyIdentity(activationId, input);
    } catch (err) {
      // The workflow refused (IDENTITY_ERROR: not pending any more, provider refused) or could not be
      // reached in time: either way verification did not start, which this route answers IDENTITY_ERROR.
      if (err instanceof AppError && err.code === 'IDENTITY_ERROR') throw err;
      throw new AppError('IDENTITY_ERROR', { message: err instanceof Error ? err.message : String(err) });
    }
  }

  async function status(userId: string, activationId: string) {
    const row = await owned(userId, activationId);
    return {
      status: row.identityStatus,
      verifiedAt: row.identityStatus === 'completed' && row.identityVerifiedAt ? row.identityVerifiedAt.toISOString() : null,
    };
  }

  return { start, status };
}

export type ActivationIdentity = ReturnType<typeof createActivationIdentity>;
