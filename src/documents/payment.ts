import type { PaymentRowMethod, PaymentStatus } from '../entities';
import { toMinorUnits } from '../payments/money';
import { provisionalReceiptNumber } from '../payments/service';
import { DATE_SQL, LABELS, METHOD_NAMES, STATUS_NAMES } from './names';
import { renderReceipt, type ReceiptLine } from './receipt';
import type { DocumentType } from './registry';

/** A consumer payment as its receipt prints it; the amount stays in the payment's own currency. */
export interface PaymentReceiptData {
  id: string;
  orderId: string;
  method: PaymentRowMethod;
  status: PaymentStatus;
  /** numeric(12,2) as text, in `currency`. */
  amount: string;
  currency: string;
  receiptNumber: string;
  /** "2026-11-24 10:15 UTC", only once the payment settled (completed or refunded). */
  paidAt: string | null;
}

interface Row {
  id: string;
  order_id: string;
  method: PaymentRowMethod;
  status: PaymentStatus;
  amount: string;
  currency: string;
  receipt_number: string | null;
  paid_at: string | null;
}

/**
 * The consumer payment receipt (`payment`): the payment's owner only, as GET /payments/:id/receipt.
 * Every status renders (as the JSON receipt does); an unsettled payment shows its provisional number.
 */
export const paymentReceipt: DocumentType<PaymentReceiptData> = {
  readers: "`payment`: the payment's owner only.",
  async load(em, entityId, principal) {
    const [row] = await em.execute<Row[]>(
      `select id, order_id, method, status, amount, currency, receipt_number,
              to_char(paid_at at time zone 'UTC', ${DATE_SQL}) as paid_at
         from payments where id = ? and user_id = ?`,
      [entityId, principal.user.id],
    );
    if (!row) return null;
    const settled = row.status === 'completed' || row.status === 'refunded';
    return {
      id: row.id,
      orderId: row.order_id,
      method: row.method,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      receiptNumber: row.receipt_number ?? provisionalReceiptNumber(row.id, row.status),
      paidAt: settled ? row.paid_at : null,
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
    return renderReceipt({ lines, totalMinor: toMinorUnits(data.amount, data.currency), currency: data.currency }, settings);
  },
  filename: (data) => `receipt-${data.receiptNumber}.pdf`,
};
