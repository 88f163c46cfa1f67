// Catalog fixtures for the B2B tests: packages with (or without) a B2B price, on one shared operator.
import { randomUUID } from 'node:crypto';
import { halalasOfSar } from './money';

interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export const B2B_OPERATOR_ID = '00000000-0000-4000-8000-00000000b2b0';

export interface PackageFixture {
  nameEn?: string;
  nameAr?: string;
  /** Decimal string such as "49.50"; null: no B2B price (not in the B2B catalog). */
  priceSarB2b?: string | null;
  priceSar?: string;
  isActive?: boolean;
}

/** A package row (on the shared B2B test operator); returns its id. */
export async function insertPackage(db: Db, fixture: PackageFixture = {}): Promise<string> {
  await db.query(
    `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
     values ($1, 'b2b-test-operator', 'telecom', 'B2B Telecom', 'اتصالات الأعمال', true, now(), now())
     on conflict do nothing`,
    [B2B_OPERATOR_ID],
  );
  const id = randomUUID();
  await db.query(
    `insert into packages (id, operator_id, name_en, name_ar, description_en, description_ar, data_amount_mb, voice_minutes,
                           sms_count, validity_days, price_halalas, price_b2b_halalas, is_active, created_at, updated_at)
     values ($1, $2, $3, $4, 'Test package', 'باقة اختبار', 10240, 500, 100, 30, $5, $6, $7, now(), now())`,
    [
      id,
      B2B_OPERATOR_ID,
      fixture.nameEn ?? `Business ${id.slice(0, 8)}`,
      fixture.nameAr ?? `أعمال ${id.slice(0, 8)}`,
      halalasOfSar(fixture.priceSar ?? '99.00'),
      fixture.priceSarB2b === undefined ? 8000 : fixture.priceSarB2b === null ? null : halalasOfSar(fixture.priceSarB2b),
      fixture.isActive ?? true,
    ],
  );
  return id;
}
