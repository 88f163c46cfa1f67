import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import { isUniqueViolation, type Db, type Tx } from '../db/sql';
import type { OrderStatus, SimType } from '../entities';
import { AppError } from '../http/errors';
import type { OperatorRegistry } from '../operators/plugin';
import { pendingStart } from '../workflow-starts/kinds';
import { enqueueStart, type StartLauncher } from '../workflow-starts/launch';
import { checkSeat, checkSeatFree, findSeat, insertCorporatePayment, lockAndGate, seatTerms, type Seat } from './company';
import { askOperator, checkEsimGate, pluginFor } from './serial';
import * as repo from './repository';
import { SIM_LIMIT_EXCEEDED, SIM_LIMITS } from './sim-limit';
import type { ActivationStartArgs } from './runs';

export { SIM_LIMITS };

export interface CreateActivationDeps {
  db: Db;
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

interface CreateInput {
  iccid: string;
  packageId: string;
  simType: SimType;
  /** The request's Idempotency-Key header, if the client sent one. */
  createKey?: string;
}

const LIVE_SERIAL_UNIQUE = 'activations_live_iccid_unique';
const CREATE_KEY_UNIQUE = 'activations_create_key_unique';
export const IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED';
const SERIAL_IN_USE = 'SERIAL_IN_USE';

/** The create lost a race on a unique index: the serial (SERIAL_IN_USE) or the key. */
const lostTo = (err: unknown) =>
  isUniqueViolation(err, CREATE_KEY_UNIQUE) ||
  (err instanceof AppError && (err.details as { reason?: string } | undefined)?.reason === SERIAL_IN_USE);

/** The 201 body: a create's answer, the first time and on every keyed repeat. */
const created = (a: { activationId: string; orderId: string; simType: SimType }) => ({
  activationId: a.activationId,
  orderId: a.orderId,
  status: 'pending' as const,
  identityStatus: 'waiting' as const,
  simType: a.simType,
});

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
  /** The order total and the item's unit price, whole halalas. */
  priceHalalas: number;
  pkg: repo.SellablePackage;
  input: CreateInput;
}

/**
 * Validate-iccid and create (consumer branch, and the company branch of company.ts). Create writes
 * order, order item, activation and the run's pending start in one transaction, then tries the start
 * at once (src/workflow-starts/launch.ts) and answers 201 whatever Temporal said: a start that failed,
 * did not answer, or never came (the process died after the commit) is made by the start relay.
 */
export function createActivationCreation(deps: CreateActivationDeps) {
  const { db, operators, config, clock } = deps;
  const afterCommit = faultAfterCommit(config);

  async function validateIccid(operatorSlug: string, iccid: string, simType: SimType) {
    checkEsimGate(config, simType);
    const operator = await repo.findActiveOperator(db, operatorSlug);
    if (!operator) throw new AppError('OPERATOR_NOT_FOUND');
    const plugin = pluginFor(operators, operatorSlug, simType);
    const check = await askOperator(plugin, iccid, simType);
    if (!check.valid) return { valid: false as const, simType, error: check.reason };
    return { valid: true as const, operatorId: operator.id, operatorSlug, simType };
  }

  /**
   * A caller with a roster entry activates their company seat (company.ts); everyone else is a consumer.
   * A repeat of a keyed request answers the first create (the client lost its answer), before any rule:
   * the SIM limit or the serial may refuse a new create now, not the one that was made.
   */
  async function create(userId: string, body: Omit<CreateInput, 'createKey'>, createKey?: string) {
    const input: CreateInput = { ...body, createKey };
    const earlier = await replayOf(userId, input);
    if (earlier) return earlier;
    const seat = await findSeat(db, userId);
    try {
      return await (seat ? createForSeat(userId, seat, input) : createForConsumer(userId, input));
    } catch (err) {
      // A parallel repeat of the same keyed request committed first (its serial or its key is taken now):
      // this one answers what that one made.
      const raced = lostTo(err) ? await replayOf(userId, input) : undefined;
      if (raced) return raced;
      throw err;
    }
  }

  /** The first answer to this key, when the request is the same; another body under the key is refused. */
  async function replayOf(userId: string, input: CreateInput) {
    if (!input.createKey) return undefined;
    const found = await repo.findKeyedCreate(db, userId, input.createKey);
    if (!found) return undefined;
    if (found.iccid !== input.iccid || found.packageId !== input.packageId || found.simType !== input.simType) {
      throw new AppError('ACTIVATION_FAILED', { details: { reason: IDEMPOTENCY_KEY_REUSED } });
    }
    return created({ activationId: found.activationId, orderId: found.orderId, simType: found.simType });
  }

  async function createForConsumer(userId: string, input: CreateInput) {
    checkEsimGate(config, input.simType);
    const pkg = await findPackage(input.packageId);
    await checkSerial(pkg, input);
    const ids = newIds();
    const args = startArgs(userId, ids, input.simType);
    await transact(async (tx) => {
      // The user row lock serializes this person's creates, so the SIM limit holds under parallel requests.
      // This is the first of three gates (sim-limit.ts): the type is the person's, not proven for this SIM yet.
      const identityType = await repo.lockPerson(tx, userId);
      const limit = SIM_LIMITS[identityType];
      if ((await repo.liveActivations(tx, userId)) >= limit) {
        throw new AppError('ACTIVATION_FAILED', { details: { reason: SIM_LIMIT_EXCEEDED, identityType, limit } });
      }
      await insertOrderRows(tx, {
        ids,
        userId,
        companyId: null,
        orderStatus: 'pending_payment',
        priceHalalas: pkg.priceHalalas,
        pkg,
        input,
      });
      await enqueueStart(tx, pendingStart.activation(args));
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
    const terms = await seatTerms(db, seat, input.packageId);
    await checkSeatFree(db, userId);
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
        priceHalalas: terms.priceHalalas,
        pkg,
        input,
      });
      const paymentId = await insertCorporatePayment(tx, { orderId: ids.orderId, userId, priceHalalas: terms.priceHalalas, now });
      const paid: ActivationStartArgs = { ...startArgs(userId, ids, input.simType), paid: true, companyId: seat.companyId, paymentId };
      await enqueueStart(tx, pendingStart.activation(paid));
      return paid;
    });
    return launch(args);
  }

  async function findPackage(packageId: string): Promise<repo.SellablePackage> {
    const pkg = await repo.findSellablePackage(db, packageId);
    if (!pkg) throw new AppError('NOT_FOUND');
    return pkg;
  }

  async function checkSerial(pkg: repo.SellablePackage, input: CreateInput): Promise<void> {
    const plugin = pluginFor(operators, pkg.operatorSlug, input.simType);
    const check = await askOperator(plugin, input.iccid, input.simType);
    if (!check.valid) throw new AppError(input.simType === 'esim' ? 'ACTIVATION_CODE_INVALID' : 'ACTIVATION_ICCID_INVALID');
  }

  /** The create transaction; a serial already in a live activation (unique index) is SERIAL_IN_USE. */
  async function transact<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await db.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err, LIVE_SERIAL_UNIQUE)) {
        throw new AppError('ACTIVATION_FAILED', { details: { reason: SERIAL_IN_USE } });
      }
      throw err;
    }
  }

  /** Order, order item and activation (`pending` / `waiting`) in the caller's transaction; returns the time written. */
  async function insertOrderRows(tx: Tx, f: OrderRows): Promise<Date> {
    const now = clock();
    const { ids, pkg, input } = f;
    await repo.insertActivationRows(tx, {
      ...ids,
      userId: f.userId,
      companyId: f.companyId,
      orderStatus: f.orderStatus,
      priceHalalas: f.priceHalalas,
      packageId: pkg.id,
      operatorId: pkg.operatorId,
      iccid: input.iccid,
      simType: input.simType,
      createKey: input.createKey ?? null,
      now,
    });
    return now;
  }

  /** After the commit: the run's start, at once (it stays pending for the relay when Temporal does not take it). */
  async function launch(args: ActivationStartArgs) {
    afterCommit();
    await deps.starts.launch(pendingStart.activation(args));
    return created(args);
  }

  return { validateIccid, create };
}

export type ActivationCreation = ReturnType<typeof createActivationCreation>;
