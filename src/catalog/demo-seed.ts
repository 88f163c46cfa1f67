import type { Sql } from '../db/sql';
import { insertOperatorIfAbsent, insertPackageIfAbsent } from './repository';

/** Fixed ids so the seed is idempotent and people can paste them into requests. */
export const DEMO = {
  operators: {
    mock: '0b6f1c4e-1d2a-4c8e-9a51-000000000001',
    mockNoEsim: '0b6f1c4e-1d2a-4c8e-9a51-000000000002',
  },
  packages: {
    starter: '5e3a9d10-7c41-4b2f-8d6e-000000000001',
    plus: '5e3a9d10-7c41-4b2f-8d6e-000000000002',
    unlimited: '5e3a9d10-7c41-4b2f-8d6e-000000000003',
    basic: '5e3a9d10-7c41-4b2f-8d6e-000000000004',
  },
} as const;

const OPERATORS = [
  { id: DEMO.operators.mock, slug: 'mock', nameEn: 'Mock Telecom', nameAr: 'الاتصالات التجريبية' },
  {
    id: DEMO.operators.mockNoEsim,
    slug: 'mock-noesim',
    nameEn: 'Mock Telecom (no eSIM)',
    nameAr: 'الاتصالات التجريبية (بدون شريحة إلكترونية)',
  },
];

const PACKAGES = [
  {
    id: DEMO.packages.starter,
    operatorId: DEMO.operators.mock,
    nameEn: 'Starter 5 GB',
    nameAr: 'باقة البداية 5 جيجابايت',
    dataMb: 5120,
    minutes: 100,
    sms: 50,
    days: 30,
    priceHalalas: 4900,
    b2bHalalas: 4200,
  },
  {
    id: DEMO.packages.plus,
    operatorId: DEMO.operators.mock,
    nameEn: 'Plus 20 GB',
    nameAr: 'باقة بلس 20 جيجابايت',
    dataMb: 20480,
    minutes: 500,
    sms: 100,
    days: 30,
    priceHalalas: 9900,
    b2bHalalas: 8550,
  },
  {
    id: DEMO.packages.unlimited,
    operatorId: DEMO.operators.mock,
    nameEn: 'Unlimited',
    nameAr: 'باقة بلا حدود',
    dataMb: 1048576,
    minutes: 3000,
    sms: 500,
    days: 30,
    priceHalalas: 19900,
    b2bHalalas: null,
  },
  {
    id: DEMO.packages.basic,
    operatorId: DEMO.operators.mockNoEsim,
    nameEn: 'Basic 2 GB',
    nameAr: 'الباقة الأساسية 2 جيجابايت',
    dataMb: 2048,
    minutes: 60,
    sms: 30,
    days: 30,
    priceHalalas: 2500,
    b2bHalalas: 2000,
  },
];

/** Seeds the mock operators and a few packages; running it again changes nothing. */
export async function seedDemoCatalog(sql: Sql, now = new Date()): Promise<void> {
  for (const op of OPERATORS) await insertOperatorIfAbsent(sql, { ...op, now });
  for (const pkg of PACKAGES) {
    await insertPackageIfAbsent(sql, {
      id: pkg.id,
      operatorId: pkg.operatorId,
      nameEn: pkg.nameEn,
      nameAr: pkg.nameAr,
      descriptionEn: `${pkg.nameEn}, ${pkg.days} days`,
      descriptionAr: `${pkg.nameAr}، ${pkg.days} يوماً`,
      dataAmountMb: pkg.dataMb,
      voiceMinutes: pkg.minutes,
      smsCount: pkg.sms,
      validityDays: pkg.days,
      priceHalalas: pkg.priceHalalas,
      priceB2bHalalas: pkg.b2bHalalas,
      now,
    });
  }
}
