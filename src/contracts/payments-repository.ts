import { query, type Sql } from '../db/sql';
import type { ContractPaymentMethod } from '../entities';
import { isUuid } from '../http/fields';
import { sarOf } from '../lib/money';
import type { ContractPaymentBody, DocumentMime } from './schemas';

/** contract_payments as the payment routes read and write it; the proof bytes only through documentOf. */

export interface PaymentDbRow {
  id: string;
  contract_id: string;
  method: ContractPaymentMethod;
  amount_halalas: string | number;
  document_name: string;
  document_mime: DocumentMime;
  has_document: boolean;
  confirmed_by: string | null;
  confirmed_by_name?: string | null;
  confirmed_at: Date | string;
  created_at: Date | string;
}

const COLUMNS = `p.id, p.contract_id, p.method, p.amount_halalas, p.document_name, p.document_mime,
  octet_length(p.document_bytes) > 0 as has_document, p.confirmed_by, p.confirmed_at, p.created_at`;
const iso = (value: Date | string) => new Date(value).toISOString();

/** The view; confirmedByName only where the row carries it (the list), null elsewhere. */
export function paymentView(row: PaymentDbRow): ContractPaymentBody {
  return {
    id: row.id,
    contractId: row.contract_id,
    method: row.method,
    amountSar: sarOf(row.amount_halalas),
    documentName: row.document_name,
    documentMime: row.document_mime,
    hasDocument: row.has_document,
    confirmedBy: row.confirmed_by,
    confirmedByName: row.confirmed_by_name ?? null,
    confirmedAt: iso(row.confirmed_at),
    createdAt: iso(row.created_at),
  };
}

export async function findPaymentByKey(sql: Sql, contractId: string, key: string): Promise<PaymentDbRow | null> {
  const row = await sql.one<PaymentDbRow>(
    query('contract-payments.by-key', `select ${COLUMNS} from contract_payments p where p.contract_id = $1 and p.idempotency_key = $2`),
    [contractId, key],
  );
  return row ?? null;
}

/** Σ payments recorded on a contract, in halalas. */
export async function paidHalalas(sql: Sql, contractId: string): Promise<number> {
  const row = await sql.one<{ paid: string }>(
    query('contract-payments.paid', 'select coalesce(sum(amount_halalas), 0) as paid from contract_payments where contract_id = $1'),
    [contractId],
  );
  return Number(row!.paid);
}

export interface NewPayment {
  contractId: string;
  method: ContractPaymentMethod;
  amountHalalas: number;
  documentName: string;
  documentMime: DocumentMime;
  documentBytes: Buffer;
  idempotencyKey: string;
  confirmedBy: string;
  now: Date;
}

/**
 * Inserts the payment unless its key is taken on this contract (contract_payments_contract_key_unique):
 * null then, and the caller reads the row that holds the key. A concurrent insert of the same key waits
 * for the other transaction and then does nothing, so the constraint alone decides a race.
 */
export async function insertPayment(sql: Sql, p: NewPayment): Promise<PaymentDbRow | null> {
  const row = await sql.one<PaymentDbRow>(
    query(
      'contract-payments.insert',
      `insert into contract_payments as p (id, contract_id, method, amount_halalas, document_name, document_mime, document_bytes,
                                           idempotency_key, confirmed_by, confirmed_at, created_at)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       on conflict (contract_id, idempotency_key) do nothing
       returning ${COLUMNS}`,
    ),
    [p.contractId, p.method, p.amountHalalas, p.documentName, p.documentMime, p.documentBytes, p.idempotencyKey, p.confirmedBy, p.now],
  );
  return row ?? null;
}

/** A contract's payments, newest first, with the recording administrator's name; [] for an unknown id. */
export async function listPayments(sql: Sql, contractId: string): Promise<PaymentDbRow[]> {
  if (!isUuid(contractId)) return [];
  return sql.rows<PaymentDbRow>(
    query(
      'contract-payments.list',
      `select ${COLUMNS}, u.name as confirmed_by_name
         from contract_payments p left join users u on u.id = p.confirmed_by
        where p.contract_id = $1
        order by p.created_at desc, p.id desc`,
    ),
    [contractId],
  );
}

/** The stored proof of one payment of one contract; null when either id is unknown or they do not belong together. */
export async function documentOf(
  sql: Sql,
  contractId: string,
  paymentId: string,
): Promise<{ name: string; mime: DocumentMime; bytes: Buffer } | null> {
  if (!isUuid(contractId) || !isUuid(paymentId)) return null;
  const row = await sql.one<{ name: string; mime: DocumentMime; bytes: Buffer }>(
    query(
      'contract-payments.document',
      `select document_name as name, document_mime as mime, document_bytes as bytes
         from contract_payments where id = $1 and contract_id = $2`,
    ),
    [paymentId, contractId],
  );
  return row ?? null;
}
