import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/sessions';
import type { ContractPaymentMethod } from '../entities';
import { holdsArea } from '../http/guards';
import { DATE_SQL, LABELS, METHOD_NAMES } from './names';
import { renderReceipt } from './receipt';
import type { DocumentAccess, DocumentType } from './registry';

/** A manual contract payment as its receipt prints it (money in halalas, SAR). */
export interface ContractPaymentReceiptData {
  id: string;
  receiptNumber: string;
  method: ContractPaymentMethod;
  amountHalalas: bigint;
  /** "2026-11-24 10:15 UTC". */
  confirmedAt: string;
  contractRef: string;
  companyId: string;
  companyName: string;
  companyCrNumber: string;
}

interface Row {
  id: string;
  method: ContractPaymentMethod;
  amount_halalas: string;
  confirmed_at: string;
  contract_ref: string;
  company_id: string;
  company_name: string;
  company_cr: string;
}

/** Contract payments have no receipt number of their own: `CP-` and the first 12 hex digits of the payment id. */
export function contractPaymentReceiptNumber(paymentId: string): string {
  return `CP-${paymentId.replace(/-/g, '').slice(0, 12).toUpperCase()}`;
}

/**
 * Staff who may view the B2B area (super_admin, or admin with `b2b` in managedAreas: the guard's own
 * holdsArea on a fresh read), or a portal user (b2b_admin) who is an admin or member of the contract's
 * company while it is approved, as the company routes' guard requires.
 */
async function mayRead(principal: Principal, companyId: string, access: DocumentAccess): Promise<boolean> {
  const staff = await access.staffAccess(principal.user.id);
  if (staff && holdsArea(staff, 'b2b', 'view')) return true;
  if (principal.user.appRole !== 'b2b_admin') return false;
  const membership = await access.membership(principal.user.id);
  return membership?.companyId === companyId && membership.status === 'approved';
}

/** Explicit columns: document_bytes (the proof, lazy) is never read for a receipt. */
async function loadRow(em: EntityManager, paymentId: string): Promise<Row | undefined> {
  const [row] = await em.execute<Row[]>(
    `select cp.id, cp.method, cp.amount_halalas, to_char(cp.confirmed_at at time zone 'UTC', ${DATE_SQL}) as confirmed_at,
            c.ref as contract_ref, c.company_id, co.name as company_name, co.cr_number as company_cr
       from contract_payments cp
       join contracts c on c.id = cp.contract_id
       join companies co on co.id = c.company_id
      where cp.id = ?`,
    [paymentId],
  );
  return row;
}

/** The contract payment receipt (`contract_payment`). */
export const contractPaymentReceipt: DocumentType<ContractPaymentReceiptData> = {
  readers:
    "`contract_payment`: admins and members of the contract's company while it is approved, and staff with B2B view " +
    '(super_admin, or admin with `b2b` in managedAreas).',
  async load(em, entityId, principal, access) {
    const row = await loadRow(em, entityId);
    if (!row || !(await mayRead(principal, row.company_id, access))) return null;
    return {
      id: row.id,
      receiptNumber: contractPaymentReceiptNumber(row.id),
      method: row.method,
      amountHalalas: BigInt(row.amount_halalas),
      confirmedAt: row.confirmed_at,
      contractRef: row.contract_ref,
      companyId: row.company_id,
      companyName: row.company_name,
      companyCrNumber: row.company_cr,
    };
  },
  render(data, settings) {
    const lines = [
      { label: LABELS.receiptNumber, value: data.receiptNumber },
      { label: LABELS.paymentId, value: data.id },
      { label: LABELS.contract, value: data.contractRef },
      { label: LABELS.company, value: data.companyName },
      { label: LABELS.companyCr, value: data.companyCrNumber },
      { label: LABELS.confirmedAt, value: data.confirmedAt },
      { label: LABELS.method, value: METHOD_NAMES[data.method] },
    ];
    return renderReceipt({ lines, totalMinor: data.amountHalalas, currency: 'SAR' }, settings);
  },
  filename: (data) => `receipt-${data.receiptNumber}.pdf`,
};
