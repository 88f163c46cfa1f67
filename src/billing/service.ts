import { writeExportAudit, type CompanyActor } from '../audit/writer';
import { findContract, listPayments, pickedMode, type ContractDbRow, type PaymentDbRow } from '../contracts';
import type { Db, Tx } from '../db/sql';
import type { PaymentMode } from '../entities';
import { csvColumns, type CsvValue } from '../http/csv';
import { sarOf, sarText } from '../lib/money';
import { contractLines } from '../links';
import {
  activeLineRows,
  billingCharges,
  chargeRows,
  chargesVersion,
  dashboardCounts,
  recentActivity,
  type BillingCharges,
  type ChargeRow,
} from './repository';
import type { z } from '../openapi/registry';
import { SerializedJson } from '../http/route';
import type { BillingBody, BillingResponse } from './schemas';

export interface BillingServiceDeps {
  db: Db;
  clock: () => Date;
}

/** Who exports, from the verified session and the membership, and where from (for the audit row). */
export type BillingActor = CompanyActor;

/** Spec "Limits": the dashboard's window and its number of events. */
export const DASHBOARD_WINDOW_MS = 30 * 24 * 3_600_000;
export const DASHBOARD_EVENTS = 8;

/** Companies whose charges the service keeps between answers (least recently answered dropped first). */
export const CHARGES_KEPT = 16;

/** The columns of charges.csv, exactly as the spec names them. */
export const CHARGES_CSV_COLUMNS = csvColumns('date', 'person', 'package', 'amount_sar');
type ChargesCsvKey = (typeof CHARGES_CSV_COLUMNS)[number]['key'];

const iso = (value: Date | string) => new Date(value).toISOString();
const monthStart = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const nextMonthStart = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);

/**
 * The company's dashboard and billing figures. Every figure of one answer is read in one
 * repeatable-read snapshot, so outstanding, paid and available agree with the rows they are summed
 * from even while activations and payments land.
 */
export function createBillingService(deps: BillingServiceDeps) {
  const { db, clock } = deps;
  const kept = new Map<string, KeptCharges>();
  const snapshot = <T>(work: (tx: Tx) => Promise<T>) => db.transaction(work, { isolation: 'repeatable read', readOnly: true });

  async function dashboard(companyId: string) {
    const now = clock();
    return snapshot(async (tx) => {
      const counts = await dashboardCounts(tx, companyId, now, new Date(now.getTime() - DASHBOARD_WINDOW_MS));
      const activity = await recentActivity(tx, companyId, now, DASHBOARD_EVENTS);
      return {
        hasLaunched: counts.launched,
        stats: { invitesSent30d: counts.minted30d, activated: counts.activated, pending: counts.pending, failed: counts.failed },
        activity: activity.map((e) => ({ kind: e.kind, personName: e.personName, at: e.at.toISOString() })),
      };
    });
  }

  async function billing(companyId: string): Promise<SerializedJson<BillingAnswer>> {
    const now = clock();
    return snapshot(async (tx) => {
      const contract = await findContract(tx, { companyId });
      if (!contract) return serialized(zeroed(await pickedMode(tx, companyId)), '[]');
      const charges = await keptCharges(tx, contract.company_id, now, contract.payment_mode === 'flexible');
      return serialized(await billingOf(tx, contract, now, charges), charges.chargesJson);
    });
  }

  /**
   * The company's charges, sums and active lines, reused while the company's charges version (read
   * in the answer's snapshot) and the month are those they were read at: every change to the
   * company's charges or lines raises the version in the writing transaction (migration
   * CompanyCharges), so the same version means the same rows. The entries are shared, never
   * changed, between answers.
   */
  async function keptCharges(tx: Tx, companyId: string, now: Date, flexible: boolean): Promise<KeptCharges> {
    const version = await chargesVersion(tx, companyId);
    const month = monthStart(now);
    let entry = kept.get(companyId);
    if (entry?.version !== version || entry.month !== month) {
      const read = await billingCharges(tx, companyId, new Date(month), new Date(nextMonthStart(now)));
      entry = { ...read, version, month };
    }
    if (flexible && !entry.activeLines) entry.activeLines = await activeLinesOf(tx, companyId);
    kept.delete(companyId); // re-inserted last: the most recently answered
    kept.set(companyId, entry);
    if (kept.size > CHARGES_KEPT) kept.delete(kept.keys().next().value!);
    return entry;
  }

  /** charges.csv: the rows of `charges`, in their order; audited with the row count in the same transaction. */
  async function exportCsv(actor: BillingActor) {
    const rows = await db.transaction(async (tx) => {
      const contract = await findContract(tx, { companyId: actor.companyId });
      const found = contract ? await chargeRows(tx, actor.companyId) : [];
      await writeExportAudit(tx, actor, {
        action: 'company.billing_export',
        entityType: 'billing',
        count: found.length,
        at: clock(),
      });
      return found;
    });
    return { filename: 'charges.csv', columns: CHARGES_CSV_COLUMNS, rows: rows.map(csvRow) };
  }

  return { dashboard, billing, exportCsv };
}

export type BillingService = ReturnType<typeof createBillingService>;

/** What keptCharges read for a company: at its charges version, in the month starting at `month` (ms). */
interface KeptCharges extends BillingCharges {
  version: string;
  month: number;
  /** Read the first time a flexible answer needs them. */
  activeLines?: BillingBody['activeLines'];
}

type BillingAnswer = z.input<typeof BillingResponse>;
type BillingWithoutCharges = Omit<BillingBody, 'charges'>;

/**
 * `{ data: billing }` with the charges spliced in as the database joined them (`charges` is the last
 * key): 10,000 entries are neither parsed nor serialized per answer, which is most of the route's time.
 */
function serialized(billing: BillingWithoutCharges, chargesJson: string): SerializedJson<BillingAnswer> {
  const head = JSON.stringify({ data: billing });
  return new SerializedJson(`${head.slice(0, -2)},"charges":${chargesJson}}}`);
}

/** No active contract: the same shape with nothing in it. */
function zeroed(mode: PaymentMode): BillingWithoutCharges {
  return {
    mode,
    outstandingSar: 0,
    accruedThisMonthSar: 0,
    contractTotalSar: 0,
    paidSar: 0,
    availableSar: mode === 'flexible' ? 0 : null,
    activeLines: [],
    latestPayment: null,
    payments: [],
    linesDrawn: { consumed: 0, total: 0 },
  };
}

/**
 * outstanding is Σ charges in both modes (flexible: the drawn total, as the spec says; prepaid: what
 * its activations drew against the prepaid lines), so `charges` always sums to it exactly: both come
 * from the same rows, added in whole halalas.
 */
async function billingOf(tx: Tx, contract: ContractDbRow, now: Date, kept: KeptCharges): Promise<BillingWithoutCharges> {
  const flexible = contract.payment_mode === 'flexible';
  const payments = (await listPayments(tx, contract.id)).map(paymentEntry);
  const paid = payments.reduce((sum, p) => sum + p.halalas, 0);
  const { outstanding, accrued, activeLines } = kept;
  return {
    mode: contract.payment_mode,
    outstandingSar: sarOf(outstanding),
    accruedThisMonthSar: sarOf(accrued),
    contractTotalSar: sarOf(contract.total_halalas),
    paidSar: sarOf(paid),
    availableSar: flexible ? sarOf(paid - outstanding) : null,
    activeLines: flexible ? (activeLines ?? []) : [],
    latestPayment: payments[0]?.view ?? null,
    payments: payments.map((p) => p.view),
    linesDrawn: flexible ? { consumed: 0, total: 0 } : await seatsDrawn(tx, contract.id, now),
  };
}

async function activeLinesOf(tx: Tx, companyId: string): Promise<BillingBody['activeLines']> {
  return (await activeLineRows(tx, companyId)).map(({ drawn, ...line }) => ({ ...line, drawnSar: sarOf(drawn) }));
}

/** Seats consumed on the prepaid lines (the CONSUMED_SEATS rule the contract view and the mint count with) and Σ qty. */
async function seatsDrawn(tx: Tx, contractId: string, now: Date): Promise<BillingBody['linesDrawn']> {
  const lines = await contractLines(tx, contractId, now);
  return { consumed: lines.reduce((sum, l) => sum + l.consumed, 0), total: lines.reduce((sum, l) => sum + l.qty, 0) };
}

function paymentEntry(row: PaymentDbRow) {
  const halalas = Number(row.amount_halalas);
  return {
    halalas,
    view: {
      id: row.id,
      documentName: row.document_name,
      amountSar: sarOf(halalas),
      recordedByName: row.confirmed_by_name ?? null,
      recordedAt: iso(row.created_at),
    },
  };
}

function csvRow(row: ChargeRow): Record<ChargesCsvKey, CsvValue> {
  const { entry } = row;
  return { date: entry.date, person: entry.personName, package: entry.packageName, amount_sar: sarText(row.halalas) };
}
