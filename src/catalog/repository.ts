import { query, type Sql } from '../db/sql';

/** The SQL of the catalog as the demo seed writes it: operators and packages, each kept when it already exists. */

export interface NewOperator {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  now: Date;
}

const INSERT_OPERATOR = query(
  'catalog.insert-operator',
  `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
   values ($1, $2, 'telecom', $3, $4, true, $5, $5) on conflict (slug) do nothing`,
);

/** An active telecom operator, unless one with its slug exists. */
export async function insertOperatorIfAbsent(sql: Sql, op: NewOperator): Promise<void> {
  await sql.exec(INSERT_OPERATOR, [op.id, op.slug, op.nameEn, op.nameAr, op.now]);
}

export interface NewPackage {
  id: string;
  operatorId: string;
  nameEn: string;
  nameAr: string;
  descriptionEn: string;
  descriptionAr: string;
  dataAmountMb: number;
  voiceMinutes: number;
  smsCount: number;
  validityDays: number;
  /** Whole halalas. */
  priceHalalas: number;
  priceB2bHalalas: number | null;
  now: Date;
}

const INSERT_PACKAGE = query(
  'catalog.insert-package',
  `insert into packages (id, operator_id, name_en, name_ar, description_en, description_ar, data_amount_mb, voice_minutes,
     sms_count, validity_days, price_halalas, price_b2b_halalas, is_active, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, true, $13, $13) on conflict (id) do nothing`,
);

/** An active package, unless one with its id exists. */
export async function insertPackageIfAbsent(sql: Sql, pkg: NewPackage): Promise<void> {
  await sql.exec(INSERT_PACKAGE, [
    pkg.id,
    pkg.operatorId,
    pkg.nameEn,
    pkg.nameAr,
    pkg.descriptionEn,
    pkg.descriptionAr,
    pkg.dataAmountMb,
    pkg.voiceMinutes,
    pkg.smsCount,
    pkg.validityDays,
    pkg.priceHalalas,
    pkg.priceB2bHalalas,
    pkg.now,
  ]);
}
