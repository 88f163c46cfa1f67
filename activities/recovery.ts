import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SimType } from '../src/entities/activation';
import { activationRunExists, createActivationWorkflows } from '../src/temporal/activations';
import type { ActivationRecoveryInput, ActivationRecoveryResult } from '../workflows/activation-recovery-contract';

export interface RecoveryActivityDeps {
  orm: MikroORM;
  clock?: () => Date;
  /** The client that starts the stranded workflows; default: the worker's own (the activity context's). */
  temporalClient?: () => Client;
}

interface StrandedRow {
  id: string;
  user_id: string;
  order_id: string;
  sim_type: SimType;
  order_status: string;
  company_id: string | null;
  /** The order's completed payment, when it was paid while the activation had no run. */
  payment_id: string | null;
  /** Epoch milliseconds (numeric, as text from the driver). */
  created_ms: string;
}

/**
 * The recovery of the start gap. The API commits an activation's rows, then starts its workflow, then marks
 * the row (workflow_started_at); a process that dies in between leaves a `pending` row without a run, which
 * would hold its serial and its order forever. Each row is checked (describe: NotFound) before anything is
 * started, and the start itself is idempotent by workflow id, so two runs, or a run racing a slow API start,
 * never start anything twice.
 */
export function createRecoveryActivities(deps: RecoveryActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  const client = deps.temporalClient ?? (() => Context.current().client);

  async function stranded(input: ActivationRecoveryInput, now: Date): Promise<StrandedRow[]> {
    return deps.orm.em.fork().execute<StrandedRow[]>(
      `select a.id, a.user_id, a.order_id, a.sim_type, o.status as order_status, o.company_id,
              (select p.id from payments p where p.order_id = o.id and p.status = 'completed' order by p.paid_at limit 1) as payment_id,
              extract(epoch from a.created_at) * 1000 as created_ms
         from activations a join orders o on o.id = a.order_id
        where a.status = 'pending' and a.workflow_started_at is null and a.deleted_at is null and a.created_at < ?
        order by a.created_at limit ?`,
      [new Date(now.getTime() - input.graceMs), input.limit],
    );
  }

  async function markStarted(activationId: string): Promise<void> {
    await deps.orm.em
      .fork()
      .execute('update activations set workflow_started_at = ? where id = ? and workflow_started_at is null', [clock(), activationId]);
  }

  return {
    async recoverStrandedActivations(input: ActivationRecoveryInput): Promise<ActivationRecoveryResult> {
      const now = clock();
      const result: ActivationRecoveryResult = { started: [], cancelled: [], found: [] };
      const temporal = client();
      const workflows = createActivationWorkflows(temporal, input.activation);
      for (const row of await stranded(input, now)) {
        Context.current().heartbeat(row.id);
        if (await activationRunExists(temporal, row.id)) {
          result.found.push(row.id);
        } else {
          // The deadline counts from the creation: what is left of it, or 1 ms (the workflow then cancels it with its order).
          const cancelAfterMs = input.activation.ACTIVATION_CANCEL_AFTER_SECONDS * 1000 - (now.getTime() - Number(row.created_ms));
          // Paid while it had no run (the payment could not signal it): the run starts knowing.
          const paid = row.order_status === 'paid';
          await workflows.start({
            activationId: row.id,
            userId: row.user_id,
            orderId: row.order_id,
            simType: row.sim_type,
            paid,
            companyId: row.company_id,
            paymentId: paid ? row.payment_id : null,
            cancelAfterMs,
          });
          (cancelAfterMs > 0 ? result.started : result.cancelled).push(row.id);
          log.warn('stranded activation: workflow started by the recovery', { activationId: row.id, cancelAfterMs, paid });
        }
        await markStarted(row.id);
      }
      return result;
    },
  };
}

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
