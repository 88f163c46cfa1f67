// Issue 35 item 3: "one store product type". The product's fields are declared once
// (StoreProductFields, src/store/product.ts); the provider's product, the sync's, the reads', ordering's,
// the mock catalog's and an order's snapshot pick from it, the views are the route schemas' (z.input).
// Checked here: the entity has those columns with those types (the type checker compares them: tsc
// runs over test/), the answer schemas agree with the fields they share, and no other store module
// declares the fields again.
import fs from 'node:fs';
import path from 'node:path';
import type { InferEntity } from '@mikro-orm/core';
import type { z } from 'zod';
import { StoreProduct } from '../../src/entities/store';
import type { ProductSnapshot, StoreProductFields } from '../../src/store/product';
import type { Product, StoreOrder } from '../../src/store/schemas';

const ROOT = path.resolve(__dirname, '..', '..');
const PRODUCT = 'src/store/product.ts';

/** true when A and B are the same type, false otherwise (checked by the compiler where it is assigned). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Shared<A, B> = { [K in keyof A & keyof B]: A[K] };

// The entity's columns, as MikroORM types them (a nullable or defaulted column is optional there).
type EntityFields = { [K in keyof StoreProductFields]-?: Exclude<InferEntity<typeof StoreProduct>[K], undefined> };
const entityAgrees: Same<EntityFields, StoreProductFields> = true;
// The public answer carries the fields it shares with the product as they are (the price is its own).
const answerAgrees: Same<Shared<z.input<typeof Product>, StoreProductFields>, Omit<StoreProductFields, 'sku' | 'priceUsdCents'>> = true;
// An order answers its snapshot as stored.
const snapshotAgrees: Same<z.input<typeof StoreOrder>['product'], ProductSnapshot> = true;

const FIELDS: Record<keyof StoreProductFields, true> = {
  sku: true,
  nameEn: true,
  nameAr: true,
  countries: true,
  dataAmountMb: true,
  isUnlimited: true,
  validityDays: true,
  requiresKyc: true,
  priceUsdCents: true,
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

/** A type member naming one of the product's own fields (`validityDays: number;`), as an interface or type literal declares it. */
const DECLARES_FIELD = new RegExp(
  `^\\s*(${Object.keys(FIELDS)
    .filter((f) => !['sku', 'nameEn', 'nameAr', 'countries'].includes(f))
    .join('|')})\\??:\\s*[^,=()]*;\\s*$`,
);

it('finds the rule on what it is for', () => {
  expect(
    ['  validityDays: number;', '  priceUsdCents?: string;', '    dataAmountMb: number | null;'].every((t) => DECLARES_FIELD.test(t)),
  ).toBe(true);
  expect(
    ['  validityDays: number,', '  validityDays: z.number().int(),', '  validityDays: row.validityDays,'].some((t) =>
      DECLARES_FIELD.test(t),
    ),
  ).toBe(false);
});

it('the entity, the answers and the snapshot agree with the one type', () => {
  expect([entityAgrees, answerAgrees, snapshotAgrees]).toEqual([true, true, true]);
  expect(Object.keys(FIELDS).filter((f) => !(f in StoreProduct.meta.properties))).toEqual([]);
});

it('declares the product fields in src/store/product.ts only', () => {
  const offenders = ['src/store', 'src/fx', 'src/cli', 'activities', 'workflows']
    .flatMap(sourceFiles)
    .filter((file) => file !== PRODUCT)
    .flatMap((file) =>
      fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (DECLARES_FIELD.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  expect(offenders).toEqual([]);
});
