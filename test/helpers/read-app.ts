/** Fixtures for the activation read routes (history, records, status, eSIM QR) and GET /operators. */
import { randomUUID } from 'node:crypto';
import { DEMO, seedDemoCatalog } from '../../src/catalog/demo-seed';
import type { TestApp } from './app';
import { halalasOfSar } from './money';

export const ESIM_STORE_OPERATOR_ID = '0b6f1c4e-1d2a-4c8e-9a51-0000000000e5';
export const OPERATOR_SECRET = 'sk_live_operator_secret_value';
export const OPERATOR_API_BASE = 'https://secret-operator-api.example.net';

/** Demo catalog, operator secrets on every row, and an eSIM store provider row that must never be listed. */
export async function seedCatalog(t: TestApp): Promise<void> {
  await seedDemoCatalog(t.db.sql);
  await t.db.query(
    `insert into operators (id, slug, kind, name_en, name_ar, logo_url, is_active, api_base_url, api_config, created_at, updated_at)
     values ($1, 'esim-store-1', 'esim_store', 'A eSIM Store', 'متجر الشرائح', 'https://cdn.example/store.png', true, $2, $3, now(), now())
     on conflict (slug) do nothing`,
    [ESIM_STORE_OPERATOR_ID, OPERATOR_API_BASE, JSON.stringify({ apiKey: OPERATOR_SECRET })],
  );
  await t.db.query('update operators set api_base_url = $1, api_config = $2', [
    OPERATOR_API_BASE,
    JSON.stringify({ apiKey: OPERATOR_SECRET }),
  ]);
}

export { DEMO };

export interface ActivationFixture {
  userId: string;
  packageId?: string;
  operatorId?: string;
  iccid?: string;
  simType?: 'physical' | 'esim';
  status?: 'pending' | 'in_progress' | 'activated' | 'failed' | 'cancelled';
  identityStatus?: 'waiting' | 'completed' | 'rejected' | 'expired' | 'error';
  esimProfile?: Record<string, unknown> | null;
  identityRef?: string | null;
  idNumberHash?: string | null;
  assignedOfficerId?: string | null;
  activatedAt?: string | null;
  failedReason?: string | null;
  retainUntil?: string | null;
  deletionRequestedAt?: string | null;
  deletedAt?: string | null;
  estimatedActivationSeconds?: number | null;
  /** ISO text, passed to PostgreSQL as is (µs precision allowed). */
  createdAt?: string;
  updatedAt?: string;
  order?: { status?: string; companyId?: string | null; totalAmountSar?: string; createdAt?: string; updatedAt?: string };
  orderItem?: { quantity?: number; unitPriceSar?: string };
}

export interface InsertedActivation {
  activationId: string;
  iccid: string;
  orderId: string;
  orderItemId: string;
}

const PACKAGE_OPERATOR: Record<string, string> = {
  [DEMO.packages.starter]: DEMO.operators.mock,
  [DEMO.packages.plus]: DEMO.operators.mock,
  [DEMO.packages.unlimited]: DEMO.operators.mock,
  [DEMO.packages.basic]: DEMO.operators.mockNoEsim,
};

export const ESIM_CODE = 'LPA:1$smdp.example.com$MATCH-ABC-123';

// Live serials are unique (activations_live_iccid_unique): every fixture gets its own by default.
let serial = 0;
function nextSerial(simType: 'physical' | 'esim'): string {
  serial += 1;
  const n = `${process.pid % 100000}`.padStart(5, '0') + `${serial}`.padStart(9, '0');
  return simType === 'esim' ? `LPA:1$smdp.example.com$FIXTURE-${n}` : `89966${n}`;
}

/** One order, its item and the activation, written with SQL. */
export async function insertActivation(t: TestApp, f: ActivationFixture): Promise<InsertedActivation> {
  const activationId = randomUUID();
  const orderId = randomUUID();
  const orderItemId = randomUUID();
  const packageId = f.packageId ?? DEMO.packages.starter;
  const operatorId = f.operatorId ?? PACKAGE_OPERATOR[packageId] ?? DEMO.operators.mock;
  const simType = f.simType ?? 'physical';
  const iccid = f.iccid ?? nextSerial(simType);
  const createdAt = f.createdAt ?? new Date().toISOString();
  const updatedAt = f.updatedAt ?? createdAt;
  const o = f.order ?? {};
  const item = f.orderItem ?? {};
  await t.db.query(
    `insert into orders (id, user_id, company_id, status, total_halalas, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      orderId,
      f.userId,
      o.companyId ?? null,
      o.status ?? 'pending_payment',
      halalasOfSar(o.totalAmountSar ?? '49.00'),
      o.createdAt ?? createdAt,
      o.updatedAt ?? updatedAt,
    ],
  );
  await t.db.query(
    `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas) values ($1, $2, $3, $4, $5, $6)`,
    [orderItemId, orderId, packageId, iccid, item.quantity ?? 1, halalasOfSar(item.unitPriceSar ?? '49.00')],
  );
  await t.db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, esim_profile, status,
       identity_status, identity_ref, id_number_encrypted, id_number_hash, assigned_officer_id, activated_at, failed_reason, retain_until,
       deletion_requested_at, deleted_at, estimated_activation_seconds, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
    [
      activationId,
      orderId,
      orderItemId,
      f.userId,
      operatorId,
      packageId,
      iccid,
      simType,
      f.esimProfile === undefined || f.esimProfile === null ? null : JSON.stringify(f.esimProfile),
      f.status ?? 'pending',
      f.identityStatus ?? 'waiting',
      f.identityRef ?? null,
      f.idNumberHash ? 'v1.secret-id-number-ciphertext' : null,
      f.idNumberHash ?? null,
      f.assignedOfficerId ?? null,
      f.activatedAt ?? null,
      f.failedReason ?? null,
      f.retainUntil ?? null,
      f.deletionRequestedAt ?? null,
      f.deletedAt ?? null,
      f.estimatedActivationSeconds === undefined ? null : f.estimatedActivationSeconds,
      createdAt,
      updatedAt,
    ],
  );
  return { activationId, iccid, orderId, orderItemId };
}

/** The esimProfile as an issued activation stores it. */
export function storedProfile(activationCodeRaw = ESIM_CODE, activationId = '00000000-0000-0000-0000-000000000000') {
  const [, smdpAddress, matchingId] = activationCodeRaw.replace(/^LPA:/, '').split('$');
  return { smdpAddress, matchingId, activationCodeRaw, qrUrl: `/activations/${activationId}/esim-qr` };
}

/** Collects a binary body (PNG) as a Buffer. */
export function binaryParser(
  res: NodeJS.ReadableStream & { setEncoding(e: string): void },
  done: (err: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}
