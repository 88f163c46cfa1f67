import { query, type Sql } from '../db/sql';
import type { ContractPaymentMethod, PaymentRowMethod, PaymentStatus } from '../entities';

// The rows the receipts print (./payment.ts, ./contract-payment.ts), dates already as a receipt prints them.

/** `to_char` pattern of the receipts' dates: "2026-11-24 10:15 UTC" (selected at time zone UTC). */
const DATE_SQL = `'YYYY-MM-DD HH24:MI "UTC"'`;

export interface PaymentReceiptRow {
  id: string;
  orderId: string;
  method: PaymentRowMethod;
  status: PaymentStatus;
  /** Integer minor units of `currency` (bigint, as text). */
  amountMinor: string;
  currency: string;
  receiptNumber: string | null;
  /** "2026-11-24 10:15 UTC". */
  paidAt: string | null;
}

const PAYMENT_RECEIPT = query(
  'documents.payment-receipt',
  `select id, order_id as "orderId", method, status, amount_minor as "amountMinor", currency, receipt_number as "receiptNumber",
          to_char(paid_at at time zone 'UTC', ${DATE_SQL}) as "paidAt"
     from payments where id = $1 and user_id = $2`,
);

/** A consumer payment, when it is the user's own. */
export async function findPaymentReceipt(sql: Sql, paymentId: string, userId: string): Promise<PaymentReceiptRow | undefined> {
  return sql.one<PaymentReceiptRow>(PAYMENT_RECEIPT, [paymentId, userId]);
}

export interface ContractPaymentReceiptRow {
  id: string;
  method: ContractPaymentMethod;
  /** bigint, as text. */
  amountHalalas: string;
  /** "2026-11-24 10:15 UTC". */
  confirmedAt: string;
  contractRef: string;
  companyId: string;
  companyName: string;
  companyCrNumber: string;
}

/** Explicit columns: document_bytes (the proof, lazy) is never read for a receipt. */
const CONTRACT_PAYMENT_RECEIPT = query(
  'documents.contract-payment-receipt',
  `select cp.id, cp.method, cp.amount_halalas as "amountHalalas", to_char(cp.confirmed_at at time zone 'UTC', ${DATE_SQL}) as "confirmedAt",
          c.ref as "contractRef", c.company_id as "companyId", co.name as "companyName", co.cr_number as "companyCrNumber"
     from contract_payments cp
     join contracts c on c.id = cp.contract_id
     join companies co on co.id = c.company_id
    where cp.id = $1`,
);

export async function findContractPaymentReceipt(sql: Sql, paymentId: string): Promise<ContractPaymentReceiptRow | undefined> {
  return sql.one<ContractPaymentReceiptRow>(CONTRACT_PAYMENT_RECEIPT, [paymentId]);
}
