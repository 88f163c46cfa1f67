import type { MikroORM } from '@mikro-orm/postgresql';
import { readinessOf } from '../companies/readiness';
import { AppError } from '../http/errors';
import type { FileReply } from '../http/route';
import { balanceOf } from './balance';
import { documentOf, listPayments, paymentView } from './payments-repository';
import { readContract } from './repository';
import { sqlOf } from '../db/transition';

export interface ContractReadDeps {
  orm: MikroORM;
  clock: () => Date;
}

/**
 * The contract reads: the active contract, readiness and balance of a company, a contract's payments
 * and one payment's proof file. Unknown ids answer null, all false, zeros or [] (the spec), except the
 * proof download, which has its own not-found code.
 */
export function createContractReads(deps: ContractReadDeps) {
  const { orm, clock } = deps;
  const em = () => orm.em.fork();

  return {
    activeContract: (companyId: string) => readContract(em(), { companyId }, clock()),
    readiness: (companyId: string) => readinessOf(sqlOf(em()), companyId),
    balance: (companyId: string) => balanceOf(em(), companyId, clock()),
    payments: async (contractId: string) => (await listPayments(sqlOf(em()), contractId)).map(paymentView),
    async paymentDocument(contractId: string, paymentId: string): Promise<FileReply> {
      const doc = await documentOf(em(), contractId, paymentId);
      if (!doc) throw new AppError('CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND');
      return { bytes: doc.bytes, contentType: doc.mime, filename: doc.name };
    },
  };
}

export type ContractReads = ReturnType<typeof createContractReads>;
