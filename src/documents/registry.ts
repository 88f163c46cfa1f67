import { contractPaymentReceipt } from './contract-payment';
import type { DocumentType } from './document-type';
import { paymentReceipt } from './payment';

// What a kind of document is: its own module, which each kind imports (this one lists them).
export type { DocumentAccess, DocumentType } from './document-type';

export type DocumentRegistry = Readonly<Record<string, DocumentType<unknown>>>;

/** Every document type, by the `:type` of GET /documents/:type/:entityId.pdf. */
export const documentTypes: DocumentRegistry = {
  payment: paymentReceipt,
  contract_payment: contractPaymentReceipt,
};

/** The registered type, or undefined (own keys only: `constructor` or `__proto__` is not a type). */
export function documentType(registry: DocumentRegistry, type: string): DocumentType<unknown> | undefined {
  return Object.hasOwn(registry, type) ? registry[type] : undefined;
}
