import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { sarText } from '../../src/lib/money';

// Issue 21: "Money in integer minor units in every column, by migrations that convert the data in place
// (tested on a database holding the old columns)". The money-units migration on rows written with the
// numeric(12,2) SAR columns: every amount becomes whole halalas (the payment's: minor units of its own
// currency), exactly, NULL stays NULL; the billing read model keeps rendering the same charge entries;
// down() brings the decimal columns back with the same values.
const BEFORE = 'Migration20261127022802_message_outbox';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(2);
  await db.migrations.down(BEFORE);
});
afterAll(() => db.drop());

type Row = Record<string, unknown>;
const one = async (sql: string, params: unknown[]) => (await db.query<Row>(sql, params))[0];

async function user(name: string): Promise<string> {
  const id = randomUUID();
  await db.query(`insert into users (id, name, created_at, updated_at) values ($1, $2, now(), now())`, [id, name]);
  return id;
}

/** Rows written with the old columns, awkward amounts included: the smallest, the largest numeric(12,2) the API takes, a half. */
async function legacyRows() {
  const operatorId = randomUUID();
  await db.query(
    `insert into operators (id, slug, kind, name_en, name_ar, is_active, created_at, updated_at)
     values ($1, $2, 'telecom', 'Legacy Telecom', 'اتصالات', true, now(), now())`,
    [operatorId, `legacy-${operatorId.slice(0, 8)}`],
  );
  const pkg = async (name: string, price: string, b2b: string | null) => {
    const id = randomUUID();
    await db.query(
      `insert into packages (id, operator_id, name_en, name_ar, data_amount_mb, voice_minutes, sms_count, validity_days, price_sar, price_sar_b2b,
                             created_at, updated_at)
       values ($1, $2, $3, $3, 1024, 10, 10, 30, $4, $5, now(), now())`,
      [id, operatorId, name, price, b2b],
    );
    return id;
  };
  const cheap = await pkg('Cheap', '0.01', '99999999.99');
  const half = await pkg('Half', '49.50', null);

  const companyId = randomUUID();
  await db.query(
    `insert into companies (id, cr_number, name, contact_name, contact_email_encrypted, contact_email_hash, contact_phone_encrypted,
                            contact_phone_hash, status, payment_mode, created_at, updated_at)
     values ($1, $2, 'Legacy Co', 'Contact', 'v1.e', repeat('e', 64), 'v1.p', repeat('p', 64), 'approved', 'flexible', now(), now())`,
    [companyId, companyId.slice(0, 10)],
  );
  const [seat, consumer, staged] = [await user('Seat'), await user('Consumer'), await user('Staged')];

  let serial = 0;
  const order = async (o: {
    userId: string;
    companyId: string | null;
    status: string;
    total: string;
    packageId: string;
    currency: string;
  }) => {
    const [orderId, itemId] = [randomUUID(), randomUUID()];
    serial += 1;
    await db.query(
      `insert into orders (id, user_id, company_id, status, total_amount_sar, currency, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, '2026-11-01T10:00:00Z', now())`,
      [orderId, o.userId, o.companyId, o.status, o.total, o.currency],
    );
    await db.query(`insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_sar) values ($1, $2, $3, $4, 1, $5)`, [
      itemId,
      orderId,
      o.packageId,
      `8999${String(serial).padStart(15, '0')}`,
      o.total,
    ]);
    return { orderId, itemId };
  };
  const payment = async (orderId: string, userId: string, status: string, amount: string, currency: string) => {
    const id = randomUUID();
    await db.query(
      `insert into payments (id, order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint,
                             paid_at, created_at, updated_at)
       values ($1, $2, $3, 'local_debit', 'mock', $4, $5, $6, $7, repeat('f', 64), $8, now(), now())`,
      [id, orderId, userId, status, amount, currency, `legacy-${id}`, status === 'completed' ? new Date() : null],
    );
    return id;
  };

  // A company seat's paid order, activated: the billing read model holds its charge and its line.
  const charged = await order({ userId: seat, companyId, status: 'paid', total: '99999999.99', packageId: cheap, currency: 'SAR' });
  const corporate = await payment(charged.orderId, seat, 'completed', '99999999.99', 'SAR');
  await db.query(
    `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, status, identity_status,
                              created_at, updated_at)
     select gen_random_uuid(), $1, $2, $3, $4, $5, i.iccid, 'physical', 'activated', 'completed', now(), now()
       from order_items i where i.id = $2`,
    [charged.orderId, charged.itemId, seat, operatorId, cheap],
  );
  const pending = await order({
    userId: consumer,
    companyId: null,
    status: 'pending_payment',
    total: '0.01',
    packageId: cheap,
    currency: 'SAR',
  });
  const cents = await payment(pending.orderId, consumer, 'pending', '0.01', 'SAR');
  const dollars = await order({ userId: consumer, companyId: null, status: 'paid', total: '49.50', packageId: half, currency: 'USD' });
  const usd = await payment(dollars.orderId, consumer, 'completed', '49.50', 'USD');

  const entry = async (userId: string, packageId: string | null, price: string | null) => {
    const id = randomUUID();
    await db.query(
      `insert into roster_entries (id, company_id, user_id, status, package_id, unit_price_sar, created_at, updated_at)
       values ($1, $2, $3, 'staged', $4, $5, now(), now())`,
      [id, companyId, userId, packageId, price],
    );
    return id;
  };
  const snapshot = await entry(seat, half, '49.50');
  const unpriced = await entry(staged, null, null);

  return { cheap, half, companyId, seat, charged, corporate, pending, cents, dollars, usd, snapshot, unpriced };
}
type Legacy = Awaited<ReturnType<typeof legacyRows>>;

const SAR_COLUMNS = [
  ['packages', 'price_sar'],
  ['packages', 'price_sar_b2b'],
  ['orders', 'total_amount_sar'],
  ['order_items', 'unit_price_sar'],
  ['payments', 'amount'],
  ['roster_entries', 'unit_price_sar'],
  ['company_charges', 'amount_sar'],
];
const MINOR_COLUMNS = [
  ['packages', 'price_halalas', 'NO'],
  ['packages', 'price_b2b_halalas', 'YES'],
  ['orders', 'total_halalas', 'NO'],
  ['order_items', 'unit_price_halalas', 'NO'],
  ['payments', 'amount_minor', 'NO'],
  ['roster_entries', 'unit_price_halalas', 'YES'],
  ['company_charges', 'amount_halalas', 'NO'],
];

/** [table, column, data type, nullable] of the money columns, old and new, that exist. */
async function moneyColumns(): Promise<string[][]> {
  const rows = await db.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `select table_name, column_name, data_type, is_nullable from information_schema.columns
      where table_schema = 'public' and (table_name, column_name) in (select * from unnest($1::text[], $2::text[]))
      order by table_name, column_name`,
    [[...SAR_COLUMNS, ...MINOR_COLUMNS].map((c) => c[0]), [...SAR_COLUMNS, ...MINOR_COLUMNS].map((c) => c[1])],
  );
  return rows.map((r) => [r.table_name, r.column_name, r.data_type, r.is_nullable]);
}

async function integerValues(l: Legacy) {
  return {
    packages: await db.query('select id, price_halalas, price_b2b_halalas from packages where id = any($1) order by price_halalas', [
      [l.cheap, l.half],
    ]),
    orders: await db.query(
      `select o.id, o.total_halalas, i.unit_price_halalas from orders o join order_items i on i.order_id = o.id
        where o.id = any($1) order by o.total_halalas`,
      [[l.charged.orderId, l.pending.orderId, l.dollars.orderId]],
    ),
    payments: await db.query('select id, amount_minor, currency from payments where id = any($1) order by amount_minor', [
      [l.corporate, l.cents, l.usd],
    ]),
    roster: await db.query('select id, unit_price_halalas from roster_entries where id = any($1) order by id', [[l.snapshot, l.unpriced]]),
    charges: await db.query('select order_id, amount_halalas, charge_json from company_charges where company_id = $1', [l.companyId]),
    lines: await db.query('select order_id, activations, halalas from company_order_lines where company_id = $1', [l.companyId]),
  };
}

function expectedIntegers(l: Legacy, chargeJson: string) {
  return {
    packages: [
      { id: l.cheap, price_halalas: '1', price_b2b_halalas: '9999999999' },
      { id: l.half, price_halalas: '4950', price_b2b_halalas: null },
    ],
    orders: [
      { id: l.pending.orderId, total_halalas: '1', unit_price_halalas: '1' },
      { id: l.dollars.orderId, total_halalas: '4950', unit_price_halalas: '4950' },
      { id: l.charged.orderId, total_halalas: '9999999999', unit_price_halalas: '9999999999' },
    ],
    payments: [
      { id: l.cents, amount_minor: '1', currency: 'SAR' },
      { id: l.usd, amount_minor: '4950', currency: 'USD' },
      { id: l.corporate, amount_minor: '9999999999', currency: 'SAR' },
    ],
    roster: [
      { id: l.snapshot, unit_price_halalas: '4950' },
      { id: l.unpriced, unit_price_halalas: null },
    ].sort((a, b) => a.id.localeCompare(b.id)),
    charges: [{ order_id: l.charged.orderId, amount_halalas: '9999999999', charge_json: chargeJson }],
    lines: [{ order_id: l.charged.orderId, activations: 1, halalas: '9999999999' }],
  };
}

async function decimalValues(l: Legacy) {
  return {
    packages: await db.query('select id, price_sar, price_sar_b2b from packages where id = any($1) order by price_sar', [
      [l.cheap, l.half],
    ]),
    orders: await db.query(
      `select o.id, o.total_amount_sar, i.unit_price_sar from orders o join order_items i on i.order_id = o.id
        where o.id = any($1) order by o.total_amount_sar`,
      [[l.charged.orderId, l.pending.orderId, l.dollars.orderId]],
    ),
    payments: await db.query('select id, amount, currency from payments where id = any($1) order by amount', [
      [l.corporate, l.cents, l.usd],
    ]),
    roster: await db.query('select id, unit_price_sar from roster_entries where id = any($1) order by id', [[l.snapshot, l.unpriced]]),
    charges: await db.query('select order_id, amount_sar, charge_json from company_charges where company_id = $1', [l.companyId]),
    lines: await db.query('select order_id, activations, halalas from company_order_lines where company_id = $1', [l.companyId]),
  };
}

function expectedDecimals(l: Legacy, chargeJson: string) {
  return {
    packages: [
      { id: l.cheap, price_sar: '0.01', price_sar_b2b: '99999999.99' },
      { id: l.half, price_sar: '49.50', price_sar_b2b: null },
    ],
    orders: [
      { id: l.pending.orderId, total_amount_sar: '0.01', unit_price_sar: '0.01' },
      { id: l.dollars.orderId, total_amount_sar: '49.50', unit_price_sar: '49.50' },
      { id: l.charged.orderId, total_amount_sar: '99999999.99', unit_price_sar: '99999999.99' },
    ],
    payments: [
      { id: l.cents, amount: '0.01', currency: 'SAR' },
      { id: l.usd, amount: '49.50', currency: 'USD' },
      { id: l.corporate, amount: '99999999.99', currency: 'SAR' },
    ],
    roster: [
      { id: l.snapshot, unit_price_sar: '49.50' },
      { id: l.unpriced, unit_price_sar: null },
    ].sort((a, b) => a.id.localeCompare(b.id)),
    charges: [{ order_id: l.charged.orderId, amount_sar: '99999999.99', charge_json: chargeJson }],
    lines: [{ order_id: l.charged.orderId, activations: 1, halalas: '9999999999' }],
  };
}

/** Makes the billing triggers compute the charged order's rows again (any write of the order does). */
async function refresh(l: Legacy) {
  await db.query('update orders set updated_at = now() where id = $1', [l.charged.orderId]);
}

/** A rename of the person renders their charge entries again. */
async function rename(l: Legacy, name: string) {
  await db.query('update users set name = $2 where id = $1', [l.seat, name]);
}

it('refuses a payment in a currency whose minor unit is not a hundredth, and changes nothing', async () => {
  const userId = await user('Dinar');
  const orderId = randomUUID();
  await db.query(
    `insert into orders (id, user_id, status, total_amount_sar, currency, created_at, updated_at) values ($1, $2, 'pending_payment', '1.50', 'KWD', now(), now())`,
    [orderId, userId],
  );
  await db.query(
    `insert into payments (order_id, user_id, method, provider, status, amount, currency, idempotency_key, request_fingerprint, created_at, updated_at)
     values ($1, $2, 'local_debit', 'mock', 'pending', '1.50', 'KWD', 'kwd', repeat('f', 64), now(), now())`,
    [orderId, userId],
  );

  await expect(db.migrations.up()).rejects.toThrow(/KWD/);

  expect(await moneyColumns()).toEqual(expect.arrayContaining([['payments', 'amount', 'numeric', 'NO']]));
  expect((await moneyColumns()).map((c) => c[1])).not.toContain('amount_minor');
  await db.query('delete from payments where order_id = $1', [orderId]);
  await db.query('delete from orders where id = $1', [orderId]);
});

it('converts every amount to whole minor units in place, keeps the billing read model, and down() restores the decimals', async () => {
  const l = await legacyRows();
  const before = await one('select charge_json from company_charges where order_id = $1', [l.charged.orderId]);
  const chargeJson = before.charge_json as string;
  expect(JSON.parse(chargeJson)).toMatchObject({ personName: 'Seat', packageName: 'Cheap', amountSar: 99999999.99 });
  expect(chargeJson).toContain('"amountSar" : 99999999.99');

  await db.migrations.up();

  expect(await moneyColumns()).toEqual(
    MINOR_COLUMNS.map(([table, column, nullable]) => [table, column, 'bigint', nullable]).sort((a, b) =>
      `${a[0]}.${a[1]}`.localeCompare(`${b[0]}.${b[1]}`),
    ),
  );
  expect(await integerValues(l)).toEqual(expectedIntegers(l, chargeJson));

  // The rewritten refresh reads the integer columns and renders the entry as it did: the same text.
  await refresh(l);
  expect(await integerValues(l)).toEqual(expectedIntegers(l, chargeJson));
  await rename(l, 'Seat Renamed');
  expect((await integerValues(l)).charges).toEqual([
    { order_id: l.charged.orderId, amount_halalas: '9999999999', charge_json: chargeJson.replace('"Seat"', '"Seat Renamed"') },
  ]);
  await rename(l, 'Seat');

  await db.migrations.down(BEFORE);

  expect(await moneyColumns()).toEqual(
    SAR_COLUMNS.map(([table, column]) => [
      table,
      column,
      'numeric',
      column === 'price_sar_b2b' || table === 'roster_entries' ? 'YES' : 'NO',
    ]).sort((a, b) => `${a[0]}.${a[1]}`.localeCompare(`${b[0]}.${b[1]}`)),
  );
  expect(await decimalValues(l)).toEqual(expectedDecimals(l, chargeJson));
  await refresh(l);
  expect(await decimalValues(l)).toEqual(expectedDecimals(l, chargeJson));

  await db.migrations.up();

  expect(await integerValues(l)).toEqual(expectedIntegers(l, chargeJson));
});

it('renders halalas in the billing entries exactly as numeric(12,2) rendered SAR (halalas_sar_text)', async () => {
  const halalas = [
    '0',
    '1',
    '5',
    '10',
    '99',
    '100',
    '101',
    '4950',
    '-1',
    '-50',
    '-4950',
    '9999999999',
    '999999999999',
    '9223372036854775807',
  ];
  const rows = await db.query<{ h: string; text: string; json: string; numeric_json: string }>(
    `select h::text, halalas_sar_text(h) as text, json_build_object('amountSar', halalas_sar_text(h)::json)::text as json,
            json_build_object('amountSar', h::numeric * 0.01)::text as numeric_json
       from unnest($1::bigint[]) h`,
    [halalas],
  );
  expect(rows.map((r) => [r.h, r.text])).toEqual(
    halalas.map((h) => {
      const digits = h.replace('-', '').padStart(3, '0');
      return [h, `${h.startsWith('-') ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`];
    }),
  );
  for (const r of rows) expect(r.json).toBe(r.numeric_json);
  // The database's one rendering and the money module's (src/lib/money.ts) are the same digits.
  expect(rows.map((r) => r.text)).toEqual(halalas.map((h) => sarText(h)));
});
