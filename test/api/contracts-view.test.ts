import { readContract } from '../../src/contracts/repository';
import { insertPackage } from '../helpers/catalog';
import { insertCompany } from '../helpers/companies';
import { insertContract, insertRosterEntry, insertSeatLink } from '../helpers/contracts';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// The contract view (spec "Contract"): lines with the seats links hold, roster figures, flexible rules.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(4);
});
afterAll(() => db.drop());

const HOUR = 3_600_000;

describe('readContract', () => {
  it('is null for no active contract, an unknown id and a non-UUID', async () => {
    const companyId = await insertCompany(db, 'approved');
    expect(await readContract(db.sql, { companyId })).toBeNull();
    expect(await readContract(db.sql, { contractId: '00000000-0000-4000-8000-000000000000' })).toBeNull();
    expect(await readContract(db.sql, { contractId: 'nope' })).toBeNull();
    expect(await readContract(db.sql, { companyId: 'nope' })).toBeNull();
  });

  it('reads a prepaid contract: totals in SAR, seats consumed by used and live links only, roster drift', async () => {
    const companyId = await insertCompany(db, 'approved');
    const [a, b] = [await insertPackage(db), await insertPackage(db)];
    const c = await insertContract(db, {
      companyId,
      items: [
        { packageId: a, qty: 3, unitPriceHalalas: 4_950 },
        { packageId: b, qty: 1, unitPriceHalalas: 1 },
      ],
    });
    const roster: { userId: string }[] = [];
    for (let i = 0; i < 6; i++) roster.push(await insertRosterEntry(db, companyId));
    const itemA = c.itemIds[0];
    const now = Date.now();
    const link = (status: string, expiresIn: number, i: number) =>
      insertSeatLink(db, { companyId, userId: roster[i].userId, contractItemId: itemA, status, expiresAt: new Date(now + expiresIn) });
    await link('used', -HOUR, 0); // consumed for good, even past expiry
    await link('sent', HOUR, 1); // live
    await link('exported', -HOUR, 2); // past expiry: frees the seat
    await link('revoked', HOUR, 3);
    await link('failed', HOUR, 4);
    await link('issued', HOUR, 5); // live
    const view = await readContract(db.sql, { companyId });
    expect(view).toMatchObject({
      id: c.contractId,
      ref: c.ref,
      companyId,
      quoteRequestId: c.quoteVersionId,
      paymentMode: 'prepaid',
      status: 'active',
      totalSar: 148.51,
      confirmedBy: null,
      totalQty: 4,
      rosterCount: 6,
      driftExcess: 2,
    });
    const byPackage = Object.fromEntries(view!.items.map((i) => [i.packageId, i]));
    expect(byPackage[a]).toEqual({ id: itemA, packageId: a, qty: 3, unitPriceSar: 49.5, consumedQty: 3, remainingQty: 0 });
    expect(byPackage[b]).toEqual({ id: c.itemIds[1], packageId: b, qty: 1, unitPriceSar: 0.01, consumedQty: 0, remainingQty: 1 });
    expect(await readContract(db.sql, { contractId: c.contractId })).toEqual(view);
  });

  it('never reports remainingQty below zero', async () => {
    const companyId = await insertCompany(db, 'approved');
    const c = await insertContract(db, { companyId, items: [{ packageId: await insertPackage(db), qty: 1, unitPriceHalalas: 100 }] });
    for (let i = 0; i < 2; i++) {
      const { userId } = await insertRosterEntry(db, companyId);
      await insertSeatLink(db, { companyId, userId, contractItemId: c.itemIds[0], status: 'used', expiresAt: new Date() });
    }
    const view = await readContract(db.sql, { contractId: c.contractId });
    expect(view!.items[0]).toMatchObject({ qty: 1, consumedQty: 2, remainingQty: 0 });
    expect(view).toMatchObject({ totalQty: 1, rosterCount: 2, driftExcess: 1 });
  });

  it('counts people, not links: a person re-minted after an abandoned activation (a used link and a live one) holds one seat', async () => {
    const companyId = await insertCompany(db, 'approved');
    const c = await insertContract(db, { companyId, items: [{ packageId: await insertPackage(db), qty: 2, unitPriceHalalas: 100 }] });
    const { userId } = await insertRosterEntry(db, companyId);
    const seat = (status: string) =>
      insertSeatLink(db, { companyId, userId, contractItemId: c.itemIds[0], status, expiresAt: new Date(Date.now() + HOUR) });
    await seat('used');
    await seat('sent');
    const view = await readContract(db.sql, { contractId: c.contractId });
    expect(view!.items[0]).toMatchObject({ qty: 2, consumedQty: 1, remainingQty: 1 });
  });

  it('reads a flexible contract: no items, totalQty 0, driftExcess 0, totalSar the declared funding', async () => {
    const companyId = await insertCompany(db, 'approved');
    for (let i = 0; i < 3; i++) await insertRosterEntry(db, companyId);
    const c = await insertContract(db, { companyId, mode: 'flexible', totalHalalas: 999_999_999 });
    expect(await readContract(db.sql, { companyId })).toMatchObject({
      id: c.contractId,
      paymentMode: 'flexible',
      totalSar: 9_999_999.99,
      items: [],
      totalQty: 0,
      rosterCount: 3,
      driftExcess: 0,
    });
  });
});
