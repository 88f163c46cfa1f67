import { writeAudit } from '../audit/writer';
import type { Actor } from '../companies/service';
import type { Db, Sql } from '../db/sql';
import { AppError } from '../http/errors';
import { sarOf } from '../lib/money';
import { proofDocument } from './document';
import { findPaymentByKey, insertPayment, paymentView, type PaymentDbRow } from './payments-repository';
import { findContract, type ContractDbRow } from './repository';
import type { ContractPaymentBody, RecordPaymentInput } from './schemas';
import { pendingSignal, type EnqueuedSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';

export interface ContractPaymentDeps {
  db: Db;
  /** Tells the company's run that paymentSatisfied may have changed (a pending signal, written with the payment). */
  signals: WorkflowSignals;
  clock: () => Date;
}

/**
 * POST /admin/contracts/:id/payments: a manual payment with its proof file, in one transaction with its
 * audit row and a pending signal that tells the company's run paymentSatisfied may have changed (the run
 * recomputes readiness from the database), sent after the commit or by the worker's signal relay.
 */
export function createContractPayments(deps: ContractPaymentDeps) {
  const { db, clock } = deps;

  async function record(actor: Actor, contractId: string, input: RecordPaymentInput): Promise<ContractPaymentBody> {
    const document = proofDocument(input.document);
    const outcome = await db.transaction(async (tx): Promise<{ row: PaymentDbRow; signal?: EnqueuedSignal }> => {
      const contract = await findContract(tx, { contractId });
      if (!contract) throw new AppError('CONTRACT_NOT_FOUND');
      const replay = await findPaymentByKey(tx, contract.id, input.idempotencyKey);
      if (replay) return { row: sameRequest(replay, input) };
      checkAmount(contract, input.amountSar);
      const now = clock();
      const row = await insertPayment(tx, {
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
      if (!row) return { row: sameRequest(await keyHolder(tx, contract.id, input.idempotencyKey), input) };
      await audit(tx, actor, contract, row, document.bytes.length, now);
      const signal = await deps.signals.enqueue(tx, pendingSignal.readinessChanged(contract.company_id, 'paymentSatisfied'));
      return { row, signal };
    });
    if (outcome.signal) await deps.signals.launch([outcome.signal]);
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

  async function keyHolder(sql: Sql, contractId: string, key: string): Promise<PaymentDbRow> {
    const row = await findPaymentByKey(sql, contractId, key);
    if (!row) throw new Error('contract payment key conflict without a row holding the key');
    return row;
  }

  async function audit(sql: Sql, actor: Actor, contract: ContractDbRow, row: PaymentDbRow, size: number, at: Date) {
    await writeAudit(sql, {
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
