import type { MikroORM } from '@mikro-orm/postgresql';
import type { ActivationStatus, IdentityStatus, IdentityType } from '../entities';
import { AppError } from '../http/errors';
import type { ActivationWorkflows } from '../temporal/activations';
import { isUuid } from '../http/fields';

export interface IdentityDeps {
  orm: MikroORM;
  workflows: ActivationWorkflows;
}

interface OwnedActivation {
  status: ActivationStatus;
  identity_status: IdentityStatus;
  identity_verified_at: string | null;
}

/** Identity verification of an activation: started through the workflow, read from Postgres. */
export function createActivationIdentity(deps: IdentityDeps) {
  async function owned(userId: string, activationId: string): Promise<OwnedActivation> {
    if (!isUuid(activationId)) throw new AppError('ACTIVATION_NOT_FOUND');
    const [row] = await deps.orm.em
      .fork()
      .execute<OwnedActivation[]>(
        'select status, identity_status, identity_verified_at from activations where id = ? and user_id = ? and deleted_at is null',
        [activationId, userId],
      );
    if (!row) throw new AppError('ACTIVATION_NOT_FOUND');
    return row;
  }

  async function start(userId: string, activationId: string, input: { identityType: IdentityType; idNumber: string }) {
    const row = await owned(userId, activationId);
    if (row.status !== 'pending') throw new AppError('IDENTITY_ERROR');
    try {
      return await deps.workflows.verifyIdentity(activationId, input);
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
      status: row.identity_status,
      verifiedAt: row.identity_status === 'completed' && row.identity_verified_at ? new Date(row.identity_verified_at).toISOString() : null,
    };
  }

  return { start, status };
}

export type ActivationIdentity = ReturnType<typeof createActivationIdentity>;
