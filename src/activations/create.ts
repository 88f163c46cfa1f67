import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { SimType } from '../entities';
import { AppError } from '../http/errors';
import type { OperatorRegistry } from '../operators/plugin';
import type { ActivationWorkflows } from '../temporal/activations';
import { askOperator, checkEsimGate, pluginFor } from './serial';
import { liveActivations, lockPerson, SIM_LIMIT_EXCEEDED, SIM_LIMITS } from './sim-limit';

export { SIM_LIMITS };

export interface CreateActivationDeps {
  orm: MikroORM;
  operators: OperatorRegistry;
  workflows: ActivationWorkflows;
  config: Pick<Config, 'FEATURE_ESIM' | 'FAULT_INJECTION'>;
  clock: () => Date;
  logger?: Pick<Logger, 'error'>;
}

/**
 * The test-only fault between commit and start (FAULT_INJECTION, refused in production): the process
 * dies as in a real crash (SIGKILL: no handlers, no cleanup), leaving committed rows without a workflow.
 */
function faultAfterCommit(config: Pick<Config, 'FAULT_INJECTION'>): () => void {
  if (config.FAULT_INJECTION !== 'crash-after-activation-commit') return () => undefined;
  return () => process.kill(process.pid, 'SIGKILL');
}

interface PackageRow {
  id: string;
  price_sar: string;
  operator_id: string;
  operator_slug: string;
}

/**
 * Validate-iccid and create (consumer branch). Create writes order, order item
 * and activation in one transaction, then starts the activation workflow
 * (within a deadline, src/temporal/activations.ts); if the start fails, the rows
 * are removed and the create fails. A process that dies between the commit and
 * the start leaves a `pending` row with no workflow: the recovery schedule
 * (activities/recovery.ts) finds it by its unset workflow_started_at, which is
 * set here once the start succeeded.
 */
export function createActivationCreation(deps: CreateActivationDeps) {
  const { orm, operators, config, clock } = deps;
  const afterCommit = faultAfterCommit(config);

  async function validateIccid(operatorSlug: string, iccid: string, simType: SimType) {
    checkEsimGate(config, simType);
    const [operator] = await orm.em
      .fork()
      .execute<{ id: string }[]>(`select id from operators where slug = ? and kind = 'telecom' and is_active`, [operatorSlug]);
    if (!operator) throw new AppError('OPERATOR_NOT_FOUND');
    const plugin = pluginFor(operators, operatorSlug, simType);
    const check = await askOperator(plugin, iccid, simType);
    if (!check.valid) return { valid: false as const, simType, error: check.reason };
    return { valid: true as const, operatorId: operator.id, operatorSlug, simType };
  }

  async function create(userId: string, input: { iccid: string; packageId: string; simType: SimType }) {
    checkEsimGate(config, input.simType);
    const [pkg] = await orm.em.fork().execute<PackageRow[]>(
      `select p.id, p.price_sar, p.operator_id, o.slug as operator_slug
         from packages p join operators o on o.id = p.operator_id
        where p.id = ? and p.is_active and o.is_active and o.kind = 'telecom'`,
      [input.packageId],
    );
    if (!pkg) throw new AppError('NOT_FOUND');
    const plugin = pluginFor(operators, pkg.operator_slug, input.simType);
    const check = await askOperator(plugin, input.iccid, input.simType);
    if (!check.valid) throw new AppError(input.simType === 'esim' ? 'ACTIVATION_CODE_INVALID' : 'ACTIVATION_ICCID_INVALID');

    const ids = { activationId: randomUUID(), orderId: randomUUID(), orderItemId: randomUUID() };
    await insertRows(userId, pkg, input, ids);
    afterCommit();
    try {
      await deps.workflows.start({ activationId: ids.activationId, userId, orderId: ids.orderId, simType: input.simType });
    } catch (err) {
      deps.logger?.error({ err, activationId: ids.activationId }, 'activation workflow did not start; rows removed');
      await removeRows(ids);
      throw new AppError('ACTIVATION_FAILED', { details: { reason: 'WORKFLOW_UNAVAILABLE' }, message: String(err) });
    }
    await markStarted(ids.activationId);
    return {
      activationId: ids.activationId,
      orderId: ids.orderId,
      status: 'pending' as const,
      identityStatus: 'waiting' as const,
      simType: input.simType,
    };
  }

  async function insertRows(
    userId: string,
    pkg: PackageRow,
    input: { iccid: string; simType: SimType },
    ids: Record<'activationId' | 'orderId' | 'orderItemId', string>,
  ) {
    try {
      await orm.em.fork().transactional(async (em) => {
        // The user row lock serializes this person's creates, so the SIM limit holds under parallel requests.
        // This is the first of three gates (sim-limit.ts): the type is the person's, not proven for this SIM yet.
        const identityType = await lockPerson(em, userId);
        const limit = SIM_LIMITS[identityType];
        if ((await liveActivations(em, userId)) >= limit) {
          throw new AppError('ACTIVATION_FAILED', { details: { reason: SIM_LIMIT_EXCEEDED, identityType, limit } });
        }
        const now = clock();
        await em.execute(
          `insert into orders (id, user_id, status, total_amount_sar, currency, created_at, updated_at) values (?, ?, 'pending_payment', ?, 'SAR', ?, ?)`,
          [ids.orderId, userId, pkg.price_sar, now, now],
        );
        await em.execute(`insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_sar) values (?, ?, ?, ?, 1, ?)`, [
          ids.orderItemId,
          ids.orderId,
          pkg.id,
          input.iccid,
          pkg.price_sar,
        ]);
        await em.execute(
          `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, status, identity_status, created_at, updated_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 'waiting', ?, ?)`,
          [ids.activationId, ids.orderId, ids.orderItemId, userId, pkg.operator_id, pkg.id, input.iccid, input.simType, now, now],
        );
      });
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) {
        throw new AppError('ACTIVATION_FAILED', { details: { reason: 'SERIAL_IN_USE' } });
      }
      throw err;
    }
  }

  /** Best effort: a row left unmarked costs the recovery one look (it finds the run and marks it). */
  async function markStarted(activationId: string) {
    try {
      await orm.em
        .fork()
        .execute('update activations set workflow_started_at = ? where id = ? and workflow_started_at is null', [clock(), activationId]);
    } catch (err) {
      deps.logger?.error({ err, activationId }, 'activation started but not marked; the recovery will mark it');
    }
  }

  async function removeRows(ids: Record<'activationId' | 'orderId', string>) {
    await orm.em.fork().transactional(async (em) => {
      await em.execute('delete from activations where id = ?', [ids.activationId]);
      await em.execute('delete from orders where id = ?', [ids.orderId]);
    });
  }

  return { validateIccid, create };
}

export type ActivationCreation = ReturnType<typeof createActivationCreation>;
