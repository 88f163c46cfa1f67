import type { Sql } from '../db/sql';
import type { QuotePreference, QuoteStatus } from '../entities';
import type { Language } from '../http/errors';
import { sarOf } from '../lib/money';
import { quoteRef } from '../../workflows/contracts/quote-contract';
import { chainVersions, versionItems, type CatalogDbRow, type VersionDbRow } from './repository';

/** The spec's shapes, built from rows: money back to SAR numbers, the needs object from its columns. */

export interface CatalogEntryView {
  id: string;
  name: string;
  description: string | null;
  dataAmountMb: number;
  voiceMinutes: number;
  smsCount: number;
  validityDays: number;
  priceSarB2b: number;
  operatorName: string;
}

export function catalogEntryView(row: CatalogDbRow, lang: Language): CatalogEntryView {
  const [description, fallback] = lang === 'ar' ? [row.description_ar, row.description_en] : [row.description_en, row.description_ar];
  return {
    id: row.id,
    name: lang === 'ar' ? row.name_ar : row.name_en,
    description: description ?? fallback,
    dataAmountMb: row.data_amount_mb,
    voiceMinutes: row.voice_minutes,
    smsCount: row.sms_count,
    validityDays: row.validity_days,
    priceSarB2b: sarOf(row.price_b2b_halalas),
    operatorName: lang === 'ar' ? row.operator_name_ar : row.operator_name_en,
  };
}

export interface NeedsView {
  userCount?: number;
  preference?: QuotePreference;
  budgetSar?: number;
  fundingSar?: number;
}

export interface QuoteVersionView {
  id: string;
  companyId: string;
  version: number;
  parentId: string | null;
  needs: NeedsView;
  status: QuoteStatus;
  note: string | null;
  companyNote: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface QuoteDetailView extends QuoteVersionView {
  items: { id: string; packageId: string; qty: number }[];
  versions: { id: string; version: number; status: QuoteStatus; createdAt: string }[];
}

export interface QuoteChainView {
  ref: string;
  live: QuoteVersionView;
  history: QuoteVersionView[];
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The trio is stored all-or-none (the request schema); fundingSar stands on its own. Absent keys are left out. */
function needsOf(row: VersionDbRow): NeedsView {
  const needs: NeedsView = {};
  if (row.needs_user_count !== null && row.needs_preference !== null && row.needs_budget_halalas !== null) {
    needs.userCount = row.needs_user_count;
    needs.preference = row.needs_preference;
    needs.budgetSar = sarOf(row.needs_budget_halalas);
  }
  if (row.needs_funding_halalas !== null) needs.fundingSar = sarOf(row.needs_funding_halalas);
  return needs;
}

export function versionView(row: VersionDbRow): QuoteVersionView {
  return {
    id: row.id,
    companyId: row.company_id,
    version: row.version,
    parentId: row.parent_id,
    needs: needsOf(row),
    status: row.status,
    note: row.note,
    companyNote: row.company_note,
    reviewedBy: row.reviewed_by,
    reviewedAt: row.reviewed_at === null ? null : iso(row.reviewed_at),
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A version with its lines and the list of its chain's versions. */
export async function detailView(sql: Sql, row: VersionDbRow): Promise<QuoteDetailView> {
  const [items, chain] = [await versionItems(sql, row.id), await chainVersions(sql, [row.chain_root_id])];
  return {
    ...versionView(row),
    items: items.map((i) => ({ id: i.id, packageId: i.package_id, qty: i.qty })),
    versions: chain.map((v) => ({ id: v.id, version: v.version, status: v.status, createdAt: iso(v.created_at) })),
  };
}

/** Chains of a page of tips: `live` is the tip, `history` every version before it, oldest first (one query for the page). */
export async function chainViews<R extends VersionDbRow>(sql: Sql, tips: readonly R[]): Promise<(QuoteChainView & { tip: R })[]> {
  const all = await chainVersions(
    sql,
    tips.map((t) => t.chain_root_id),
  );
  const byChain = new Map<string, VersionDbRow[]>();
  for (const v of all) byChain.set(v.chain_root_id, [...(byChain.get(v.chain_root_id) ?? []), v]);
  return tips.map((tip) => ({
    tip,
    ref: quoteRef(tip.chain_root_id),
    live: versionView(tip),
    history: (byChain.get(tip.chain_root_id) ?? []).filter((v) => v.version < tip.version).map(versionView),
  }));
}
