import type { Principal } from '../auth/sessions';
import { holdsArea } from '../http/guards';
import { LABELS, METHOD_NAMES } from './names';
import { findContractPaymentReceipt, type ContractPaymentReceiptRow } from './reads';
import { renderReceipt } from './receipt';
import type { DocumentAccess, DocumentType } from './document-type';

/** A manual contract payment as its receipt prints it (money in halalas, SAR). */
export interface ContractPaymentReceiptData extends Omit<ContractPaymentReceiptRow, 'amountHalalas'> {
  receiptNumber: string;
  amountHalalas: bigint;
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

/** The contract payment receipt (`contract_payment`). */
export const contractPaymentReceipt: DocumentType<ContractPaymentReceiptData> = {
  readers:
    "`contract_payment`: admins and members of the contract's company while it is approved, and staff with B2B view " +
    '(super_admin, or admin with `b2b` in managedAreas).',
  async load(sql, entityId, principal, access) {
    const row = await findContractPaymentReceipt(sql, entityId);
    if (!row || !(await mayRead(principal, row.companyId, access))) return null;
    return { ...row, receiptNumber: contractPaymentReceiptNumber(row.id), amountHalalas: BigInt(row.amountHalalas) };
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
