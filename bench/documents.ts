/**
 * PDF receipts (a phase of `npm run bench`, `--only documents` / `--no-documents`), rendered per
 * second in-process: the registry's own renderers (both types) with organization settings that
 * print the header, footer and VAT line; per second, p50 and p99, and the font-load counter that
 * shows the Noto Naskh Arabic files were read from disk once for the whole run (the budget: p50
 * under 100 ms, and the font loaded once per process).
 */
import { contractPaymentReceipt, type ContractPaymentReceiptData } from '../src/documents/contract-payment';
import { fontLoads } from '../src/documents/fonts';
import { paymentReceipt, type PaymentReceiptData } from '../src/documents/payment';
import type { OrganizationSettings } from '../src/settings/organization';
import type { Phase } from './lib/phase';
import { fmt, latencyStats } from './lib/stats';

/** Receipts rendered for the documents phase (half of each type). */
const DOCUMENT_RENDERS = 400;
/** Budget of the issue: a receipt renders in under 100 ms at the median. */
const DOCUMENT_P50_BUDGET_MS = 100;

export const documentsPhase: Phase<DocumentBenchResult & { verdict: 'PASS' | 'FAIL' }> = {
  name: 'documents',
  plan: () => `${DOCUMENT_RENDERS} PDF receipts`,
  async run() {
    const r = await benchDocuments({ count: DOCUMENT_RENDERS });
    const fast = r.p50Ms < DOCUMENT_P50_BUDGET_MS;
    const once = r.fontLoads === 1;
    console.log(`\nPDF receipts, ${fmt(r.count, 0)} rendered in-process (both types, VAT line on):`);
    console.log(
      `  ${fmt(r.perSecond, 1)} receipts/s, p50 ${fmt(r.p50Ms, 1)} ms, p99 ${fmt(r.p99Ms, 1)} ms; ${r.bytes.payment} and ${r.bytes.contractPayment} bytes`,
    );
    console.log(`  ${fast ? 'PASS' : '*** FAIL ***'}  p50 under ${DOCUMENT_P50_BUDGET_MS} ms: ${fmt(r.p50Ms, 1)} ms`);
    console.log(`  ${once ? 'PASS' : '*** FAIL ***'}  the Arabic font read once per process: ${r.fontLoads} load(s)`);
    return { ...r, verdict: fast && once ? 'PASS' : 'FAIL' };
  },
  verdict: (r) => r.verdict,
};

export interface DocumentBenchOptions {
  /** Receipts to render (half of each type); default 200. */
  count?: number;
  /** Renders before timing starts (JIT, font parse); default 10. */
  warmup?: number;
}

export interface DocumentBenchResult {
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Times the font files were read from disk in this process: 1 means once, however many documents. */
  fontLoads: number;
  /** Size of the last PDF of each type, for the report. */
  bytes: { payment: number; contractPayment: number };
}

const SETTINGS: OrganizationSettings = {
  legalNameEn: 'Acme Telecom Trading Co.',
  legalNameAr: 'شركة أكمي للاتصالات التجارية',
  vatNumber: '300123456700003',
  crNumber: '1010123456',
  addressEn: 'King Fahd Road 1234, Al Olaya, Riyadh 12211, Saudi Arabia',
  addressAr: 'طريق الملك فهد 1234، حي العليا، الرياض 12211، المملكة العربية السعودية',
  supportEmail: 'support@acme.example',
  supportPhone: '+966500000001',
  showVatOnReceipts: true,
  vatRatePercent: 15,
};

function payment(i: number): PaymentReceiptData {
  return {
    id: `5b0c7e8a-1f2d-4c3b-9a8e-${String(i).padStart(12, '0')}`,
    orderId: `0e9d8c7b-6a5f-4e3d-2c1b-${String(i).padStart(12, '0')}`,
    method: 'local_debit',
    status: 'completed',
    amountMinor: String((100 + (i % 900)) * 100 + (i % 100)),
    currency: 'SAR',
    receiptNumber: `RCP-20261124-${i.toString(16).toUpperCase().padStart(8, '0')}`,
    paidAt: '2026-11-24 10:15 UTC',
  };
}

function contractPayment(i: number): ContractPaymentReceiptData {
  const id = `3832c55a-7b3c-4192-9b62-${String(i).padStart(12, '0')}`;
  return {
    id,
    receiptNumber: `CP-${id.replace(/-/g, '').slice(0, 12).toUpperCase()}`,
    method: i % 2 ? 'bank_transfer' : 'cheque',
    amountHalalas: BigInt(1_000_001 + i * 137),
    confirmedAt: '2026-11-23 14:05 UTC',
    contractRef: `CTR-${i.toString(16).toUpperCase().padStart(12, '0')}`,
    companyId: '00000000-0000-4000-8000-000000000001',
    companyName: 'مؤسسة النور للتجارة',
    companyCrNumber: '7001234567',
  };
}

/** Renders `count` receipts one after another (alternating types) and times each render. */
export async function benchDocuments(opts: DocumentBenchOptions = {}): Promise<DocumentBenchResult> {
  const count = opts.count ?? 200;
  const render = (i: number) =>
    i % 2 ? contractPaymentReceipt.render(contractPayment(i), SETTINGS) : paymentReceipt.render(payment(i), SETTINGS);
  for (let i = 0; i < (opts.warmup ?? 10); i++) await render(i);
  const samples: number[] = [];
  const bytes = { payment: 0, contractPayment: 0 };
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const pdf = await render(i);
    samples.push(performance.now() - t0);
    if (i % 2) bytes.contractPayment = pdf.length;
    else bytes.payment = pdf.length;
  }
  const elapsedMs = performance.now() - started;
  const stats = latencyStats(samples);
  return { count, perSecond: (count / elapsedMs) * 1000, p50Ms: stats.p50, p99Ms: stats.p99, fontLoads: fontLoads(), bytes };
}
