import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { OrderStatus, SimType } from '../entities';
import { AppError } from '../http/errors';
import type { OperatorRegistry } from '../operators/plugin';
import { pendingStart } from '../workflow-starts/kinds';
import type { StartLauncher } from '../workflow-starts/launch';
import { sqlOf } from '../db/transition';
import { enqueueStart } from '../workflow-starts/repository';
import { checkSeat, checkSeatFree, findSeat, insertCorporatePayment, lockAndGate, seatTerms, type Seat } from './company';
import { askOperator, checkEsimGate, pluginFor } from './serial';
import { liveActivations, lockPerson, SIM_LIMIT_EXCEEDED, SIM_LIMITS } from './sim-limit';
import type { ActivationStartArgs } from './start';

export { SIM_LIMITS };

export interface CreateActivationDeps {
  orm: MikroORM;
  operators: OperatorRegistry;
  /** Makes the run's start at once after the commit (or leaves it to the start relay). */
  starts: StartLauncher;
  config: Pick<Config, 'FEATURE_ESIM' | 'FAULT_INJECTION'>;
  clock: () => Date;
}

/**
 * The test-only fault between commit and start (FAULT_INJECTION, refused in production): the process
 * dies as in a real crash (SIGKILL: no handlers, no cleanup), leaving committed rows and their pending
 * start without a workflow (the start relay makes it).
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

interface CreateInput {
  iccid: string;
  packageId: string;
  simType: SimType;
}

type RowIds = Record<'activationId' | 'orderId' | 'orderItemId', string>;
const newIds = (): RowIds => ({ activationId: randomUUID(), orderId: randomUUID(), orderItemId: randomUUID() });
const startArgs = (userId: string, ids: RowIds, simType: SimType): ActivationStartArgs => ({
  activationId: ids.activationId,
  userId,
  orderId: ids.orderId,
  simType,
});

interface OrderRows {
  ids: RowIds;
  userId: string;
  companyId: string | null;
  orderStatus: OrderStatus;
  /** The order total and the item's unit price (decimal string). */
  priceSar: string;
  pkg: PackageRow;
  input: CreateInput;
}

/**
 * Validate-iccid and create (consumer branch, and the company branch of company.ts). Create writes
 * order, order item, activation and the run's pending start in one transaction, then tries the start
 * at once (src/workflow-starts/launch.ts) and answers 201 whatever Temporal said: a start that failed,
 * did not answer, or never came (the process died after the commit) is made by the start relay.
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

  /** A caller with a roster entry activates their company seat (company.ts); everyone else is a consumer. */
  async function create(userId: string, input: CreateInput) {
    const seat = await findSeat(orm.em.fork(), userId);
    return seat ? createForSeat(userId, seat, input) : createForConsumer(userId, input);
  }

  async function createForConsumer(userId: string, input: CreateInput) {
    checkEsimGate(config, input.simType);
    const pkg = await findPackage(input.packageId);
    await checkSerial(pkg, input);
    const ids = newIds();
    const args = startArgs(userId, ids, input.simType);
    await transact(async (em) => {
      // The user row lock serializes this person's creates, so the SIM limit holds under parallel requests.
      // This is the first of three gates (sim-limit.ts): the type is the person's, not proven for this SIM yet.
      const identityType = await lockPerson(em, userId);
      const limit = SIM_LIMITS[identityType];
      if ((await liveActivations(em, userId)) >= limit) {
        throw new AppError('ACTIVATION_FAILED', { details: { reason: SIM_LIMIT_EXCEEDED, identityType, limit } });
      }
      await insertOrderRows(em, { ids, userId, companyId: null, orderStatus: 'pending_payment', priceSar: pkg.price_sar, pkg, input });
      await enqueueStart(sqlOf(em), pendingStart.activation(args));
    });
    return launch(args);
  }

  /**
   * The company branch: the seat's package and price come from the contract (company.ts), the order
   * lands paid with the synthetic corporate payment in the same transaction, and the workflow starts
   * already paid (identity verification is still required).
   */
  async function createForSeat(userId: string, seat: Seat, input: CreateInput) {
    // Company seats are physical only (eSIM rule 6), whatever the eSIM gate says.
    if (input.simType === 'esim') throw new AppError('ACTIVATION_ESIM_DISABLED');
    checkSeat(seat);
    const em = orm.em.fork();
    const terms = await seatTerms(em, seat, input.packageId);
    await checkSeatFree(em, userId);
    const pkg = await findPackage(terms.packageId);
    await checkSerial(pkg, input);
    const ids = newIds();
    const args = await transact(async (tx) => {
      await lockAndGate(tx, userId, seat, terms);
      const now = await insertOrderRows(tx, {
        ids,
        userId,
        companyId: seat.companyId,
        orderStatus: 'paid',
        priceSar: terms.priceSar,
        pkg,
        input,
      });
      const paymentId = await insertCorporatePayment(tx, { orderId: ids.orderId, userId, priceSar: terms.priceSar, now });
      const paid: ActivationStartArgs = { ...startArgs(userId, ids, input.simType), paid: true, companyId: seat.companyId, paymentId };
      await enqueueStart(sqlOf(tx), pendingStart.activation(paid));
      return paid;
    });
    return launch(args);
  }

  async function findPackage(packageId: string): Promise<PackageRow> {
    const [pkg] = await orm.em.fork().execute<PackageRow[]>(
      `select p.id, p.price_sar, p.operator_id, o.slug as operator_slug
         from packages p join operators o on o.id = p.operator_id
        where p.id = ? and p.is_active and o.is_active and o.kind = 'telecom'`,
      [packageId],
    );
    if (!pkg) throw new AppError('NOT_FOUND');
    return pkg;
  }

  async function checkSerial(pkg: PackageRow, input: CreateInput): Promise<void> {
    const plugin = pluginFor(operators, pkg.operator_slug, input.simType);
    const check = await askOperator(plugin, input.iccid, input.simType);
    if (!check.valid) throw new AppError(input.simType === 'esim' ? 'ACTIVATION_CODE_INVALID' : 'ACTIVATION_ICCID_INVALID');
  }

  /** The create transaction; a serial already in a live activation (unique index) is SERIAL_IN_USE. */
  async function transact<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await orm.em.fork().transactional(work);
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) {
        throw new AppError('ACTIVATION_FAILED', { details: { reason: 'SERIAL_IN_USE' } });
      }
      throw err;
    }
  }

  /** Order, order item and activation (`pending` / `waiting`) in the caller's transaction; returns the time written. */
  async function insertOrderRows(em: EntityManager, f: OrderRows): Promise<Date> {
    const now = clock();
    const { ids, pkg, input } = f;
    await em.execute(
      `insert into orders (id, user_id, company_id, status, total_amount_sar, currency, created_at, updated_at) values (?, ?, ?, ?, ?, 'SAR', ?, ?)`,
      [ids.orderId, f.userId, f.companyId, f.orderStatus, f.priceSar, now, now],
    );
    await em.execute(`insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_sar) values (?, ?, ?, ?, 1, ?)`, [
      ids.orderItemId,
      ids.orderId,
      pkg.id,
      input.iccid,
      f.priceSar,
    ]);
    await em.execute(
      `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, status, identity_status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 'waiting', ?, ?)`,
      [ids.activationId, ids.orderId, ids.orderItemId, f.userId, pkg.operator_id, pkg.id, input.iccid, input.simType, now, now],
    );
    return now;
  }

  /** After the commit: the run's start, at once (it stays pending for the relay when Temporal does not take it). */
  async function launch(args: ActivationStartArgs) {
    afterCommit();
    await deps.starts.launch(pendingStart.activation(args));
    return {
      activationId: args.activationId,
      orderId: args.orderId,
      status: 'pending' as const,
      identityStatus: 'waiting' as const,
      simType: args.simType,
    };
  }

  return { validateIccid, create };
}

export type ActivationCreation = ReturnType<typeof createActivationCreation>;
