import { provisionalReceiptNumber } from '../payments/service';
import { LABELS, METHOD_NAMES, STATUS_NAMES } from './names';
import { findPaymentReceipt, type PaymentReceiptRow } from './reads';
import { renderReceipt, type ReceiptLine } from './receipt';
import type { DocumentType } from './document-type';

/** A consumer payment as its receipt prints it; the amount stays in the payment's own currency. */
export interface PaymentReceiptData extends Omit<PaymentReceiptRow, 'receiptNumber'> {
  /** Its own, or the provisional one of an unsettled payment. */
  receiptNumber: string;
  /** Only once the payment settled (completed or refunded). */
  paidAt: string | null;
}

/**
 * The consumer payment receipt (`payment`): the payment's owner only, as GET /payments/:id/receipt.
 * Every status renders (as the JSON receipt does); an unsettled payment shows its provisional number.
 */
export const paymentReceipt: DocumentType<PaymentReceiptData> = {
  readers: "`payment`: the payment's owner only.",
  async load(sql, entityId, principal) {
    const row = await findPaymentReceipt(sql, entityId, principal.user.id);
    if (!row) return null;
    const settled = row.status === 'completed' || row.status === 'refunded';
    return {
      ...row,
      receiptNumber: row.receiptNumber ?? provisionalReceiptNumber(row.id, row.status),
      paidAt: settled ? row.paidAt : null,
    };
  },
  render(data, settings) {
    const lines: ReceiptLine[] = [
      { label: LABELS.receiptNumber, value: data.receiptNumber },
      { label: LABELS.paymentId, value: data.id },
      { label: LABELS.orderId, value: data.orderId },
      ...(data.paidAt ? [{ label: LABELS.paidAt, value: data.paidAt }] : []),
      { label: LABELS.method, value: METHOD_NAMES[data.method] },
      { label: LABELS.status, value: STATUS_NAMES[data.status] },
    ];
    return renderReceipt({ lines, totalMinor: BigInt(data.amountMinor), currency: data.currency }, settings);
  },
  filename: (data) => `receipt-${data.receiptNumber}.pdf`,
};
