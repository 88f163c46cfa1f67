import { CONTRACT_STATUSES, PAYMENT_MODES } from '../entities';
import { z } from '../openapi/registry';

// --- The contract, as every route answers it (portal, admin, confirm-contract) ----------------------

const Sar = (description: string) => z.number().openapi({ description: `SAR (JSON number, 2 decimals at most). ${description}` });

export const ContractItem = z
  .object({
    id: z.uuid(),
    packageId: z.uuid(),
    qty: z.number().int().openapi({ description: 'Seats bought on this line' }),
    unitPriceSar: Sar('The package’s B2B price snapshotted at confirmation'),
    consumedQty: z.number().int().openapi({ description: 'Seats held by a link that is `used`, or still active and not past its expiry' }),
    remainingQty: z.number().int().openapi({ description: 'max(0, qty − consumedQty)' }),
  })
  .openapi('ContractItem');

export const Contract = z
  .object({
    id: z.uuid(),
    ref: z.string().openapi({ description: '`CTR-` plus 12 hex characters; display only' }),
    companyId: z.uuid(),
    quoteRequestId: z.uuid().openapi({ description: 'The quote version the contract was confirmed from' }),
    paymentMode: z.enum(PAYMENT_MODES).openapi({ description: 'Inherited from the company at confirmation' }),
    status: z.enum(CONTRACT_STATUSES),
    totalSar: Sar('Prepaid: Σ qty × unitPriceSar; flexible: the declared funding'),
    confirmedBy: z.uuid().nullable().openapi({ description: 'The administrator who confirmed it (null once that user is gone)' }),
    confirmedAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    items: z.array(ContractItem).openapi({ description: 'Prepaid lines; always empty for a flexible contract' }),
    totalQty: z.number().int().openapi({ description: 'Σ qty over the items; 0 for a flexible contract' }),
    rosterCount: z.number().int().openapi({ description: 'The company’s roster rows' }),
    driftExcess: z.number().int().openapi({ description: 'max(0, rosterCount − totalQty); 0 for a flexible contract' }),
  })
  .openapi('Contract');
export type ContractBody = z.input<typeof Contract>;

export const ContractResponse = z.object({ data: Contract }).openapi('ContractResponse');
export const MaybeContractResponse = z
  .object({ data: Contract.nullable().openapi({ description: 'The active contract, or null when there is none' }) })
  .openapi('MaybeContractResponse');
