import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { writeAudit } from '../audit/writer';
import type { CompanyRuns } from '../companies/runs';
import type { Actor } from '../companies/service';
import { AppError } from '../http/errors';
import { sarOf } from '../lib/halalas';
import { proofDocument } from './document';
import { findPaymentByKey, insertPayment, paymentView, type PaymentDbRow } from './payments-repository';
import { findContract, type ContractDbRow } from './repository';
import type { ContractPaymentBody, RecordPaymentInput } from './schemas';
import { sqlOf } from '../db/transition';

export interface ContractPaymentDeps {
  orm: MikroORM;
  companyRuns: Pick<CompanyRuns, 'readinessChanged'>;
  clock: () => Date;
  logger: Pick<Logger, 'warn'>;
}

/**
 * POST /admin/contracts/:id/payments: a manual payment with its proof file, in one transaction with its
 * audit row; then the company run hears that paymentSatisfied may have changed (best effort: the run
 * recomputes readiness from the database).
 */
export function createContractPayments(deps: ContractPaymentDeps) {
  const { orm, companyRuns, clock } = deps;

  async function record(actor: Actor, contractId: string, input: RecordPaymentInput): Promise<ContractPaymentBody> {
    const document = proofDocument(input.document);
    const outcome = await orm.em.fork().transactional(async (em) => {
      const contract = await findContract(sqlOf(em), { contractId });
      if (!contract) throw new AppError('CONTRACT_NOT_FOUND');
      const replay = await findPaymentByKey(em, contract.id, input.idempotencyKey);
      if (replay) return { row: sameRequest(replay, input), fresh: false, companyId: contract.company_id };
      checkAmount(contract, input.amountSar);
      const now = clock();
      const row = await insertPayment(em, {
        contractId: contract.id,
        method: input.method,
        amountHalalas: input.amountSar,
        documentName: input.document.name,
        documentMime: document.mime,
        documentBytes: document.bytes,
        idempotencyKey: input.idempotencyKey,
        confirmedBy: actor.userId,
        now,
      });
      // Two requests with one key: the key's unique constraint decides, and the loser answers with the winner's row.
      if (!row)
        return {
          row: sameRequest(await keyHolder(em, contract.id, input.idempotencyKey), input),
          fresh: false,
          companyId: contract.company_id,
        };
      await audit(em, actor, contract, row, document.bytes.length, now);
      return { row, fresh: true, companyId: contract.company_id };
    });
    if (outcome.fresh) await signal(outcome.companyId);
    return paymentView(outcome.row);
  }

  /**
   * Prepaid: every payment is at least the contract total, never a partial one (the spec's "no partial
   * records"); a second such payment is a record like the first. Flexible: any positive amount, every
   * top-up. The rule reads the request alone, so payments with different keys never wait for each other.
   */
  function checkAmount(contract: ContractDbRow, amountHalalas: number): void {
    if (contract.payment_mode !== 'prepaid') return;
    const total = Number(contract.total_halalas);
    if (amountHalalas < total) throw new AppError('CONTRACT_PAYMENT_BELOW_TOTAL', { details: { totalSar: sarOf(total) } });
  }

  async function keyHolder(em: EntityManager, contractId: string, key: string): Promise<PaymentDbRow> {
    const row = await findPaymentByKey(em, contractId, key);
    if (!row) throw new Error('contract payment key conflict without a row holding the key');
    return row;
  }

  async function audit(em: EntityManager, actor: Actor, contract: ContractDbRow, row: PaymentDbRow, size: number, at: Date) {
    await writeAudit(sqlOf(em), {
      action: 'company.contract_payment_recorded',
      actorUserId: actor.userId,
      companyId: contract.company_id,
      entityType: 'contract_payment',
      entityId: row.id,
      // The proof's name, kind and size only: the bytes stay in contract_payments.
      details: {
        contractId: contract.id,
        method: row.method,
        amountSar: sarOf(row.amount_halalas),
        documentName: row.document_name,
        documentMime: row.document_mime,
        documentBytes: size,
      },
      ip: actor.ip,
      userAgent: actor.userAgent,
      at,
    });
  }

  async function signal(companyId: string): Promise<void> {
    try {
      await companyRuns.readinessChanged(companyId, 'paymentSatisfied');
    } catch (err) {
      // The port promises not to throw; if one does, the payment is recorded all the same.
      deps.logger.warn({ err, companyId }, 'readiness signal after a contract payment failed');
    }
  }

  return { record };
}

/** A replayed key answers the original only for the same method and amount. */
function sameRequest(row: PaymentDbRow, input: RecordPaymentInput): PaymentDbRow {
  if (row.method === input.method && Number(row.amount_halalas) === input.amountSar) return row;
  throw new AppError('CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT', {
    details: { existingPaymentId: row.id, method: row.method, amountSar: sarOf(row.amount_halalas) },
  });
}

export type ContractPayments = ReturnType<typeof createContractPayments>;
