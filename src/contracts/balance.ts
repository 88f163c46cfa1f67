import type { Sql } from '../db/sql';
import type { PaymentMode } from '../entities';
import { isUuid } from '../http/fields';
import { sarOf } from '../lib/money';
import { activeLines, committedHalalas, drawnHalalas, findContract, pickedMode } from './repository';
import { paidHalalas } from './payments-repository';
import type { Balance } from './schemas';
import type { z } from '../openapi/registry';

type BalanceBody = z.input<typeof Balance>;

/**
 * GET /admin/contracts/company/:companyId/balance, exactly as the spec's table defines it. The
 * balance is the flexible drawdown ledger: no active contract, a prepaid contract (its seats are the
 * ledger, see the contract's lines) or an unknown company answer zeros and no lines, not 404.
 *
 * - drawn: the company's paid orders (orders.company_id; status paid or completed) whose activation is
 *   still alive (not failed or cancelled).
 * - committed: seats consumed (a company link `used`, or active and not past expiry) whose person has
 *   no live charge yet, priced at the roster row's mint-time snapshot (the link mint's gate subtracts
 *   it too, src/links/service.ts; the activation gate does not).
 * - activeLines: per package, the activated (not deleted) activations of those orders.
 */
export async function balanceOf(sql: Sql, companyId: string, now: Date): Promise<BalanceBody> {
  if (!isUuid(companyId)) return zeros('prepaid');
  const contract = await findContract(sql, { companyId });
  if (!contract) return zeros(await pickedMode(sql, companyId));
  if (contract.payment_mode !== 'flexible') return zeros(contract.payment_mode);
  const funded = await paidHalalas(sql, contract.id);
  const drawn = await drawnHalalas(sql, companyId);
  const committed = await committedHalalas(sql, companyId, now);
  return {
    paymentMode: 'flexible',
    fundedSar: sarOf(funded),
    drawnSar: sarOf(drawn),
    committedSar: sarOf(committed),
    availableSar: sarOf(funded - drawn),
    activeLines: await activeLines(sql, companyId),
  };
}

function zeros(paymentMode: PaymentMode): BalanceBody {
  return { paymentMode, fundedSar: 0, drawnSar: 0, committedSar: 0, availableSar: 0, activeLines: [] };
}
