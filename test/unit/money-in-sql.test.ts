import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Issue 21: "Money in integer minor units in every column ... JSON numbers only at the edge." Checked on
// the tree: no SQL (the app's repositories and reads modules, src/db, the bench and the test fixtures)
// names a numeric SAR column or converts between SAR and halalas (`* 100`, `/ 100`, `::numeric`): the
// columns hold integers and the statements add integers. The migrations and the superseded SQL function
// definitions they apply (src/db/functions/superseded) are history and are not read.
const ROOT = path.resolve(__dirname, '..', '..');
const ROOTS = ['src', 'activities', 'worker', 'workflows', 'bench', 'test/helpers'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const holdsSql = (file: string) =>
  (/(^|\/|-)(repository|reads)\.ts$/.test(file) ||
    file.startsWith('src/db/') ||
    file === 'src/relay/statements.ts' ||
    !file.startsWith('src/')) &&
  !file.startsWith('src/db/migrations/') &&
  !file.startsWith('src/db/functions/superseded/');

/** The text of every template literal, its `${…}` interpolations (TypeScript, not SQL) cut out. */
function templateText(code: string): string[] {
  const literals = code.match(/`(?:[^`\\]|\\.)*`/g) ?? [];
  return literals.map((literal) => {
    let text = literal;
    for (let previous = ''; previous !== text;) {
      previous = text;
      text = text.replace(/\$\{[^{}`]*\}/g, ' ');
    }
    return text;
  });
}

const files = ROOTS.flatMap((root) => sourceFiles(path.join(ROOT, root)))
  .map((full) => ({ file: path.relative(ROOT, full), code: readFileSync(full, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '') }))
  .filter(({ file }) => holdsSql(file));

const OLD_COLUMNS = /\b(price_sar|price_sar_b2b|total_amount_sar|unit_price_sar)\b|\.amount_sar\b|\(amount_sar\b|, amount_sar\b/;
const CONVERSION = /\*\s*100\b|\/\s*100(\.0+)?\b|::numeric\b/;

it('finds the rule on what it is for', () => {
  expect(['select price_sar from packages', 'sum(c.amount_sar)', 'insert into x (a, amount_sar)'].every((t) => OLD_COLUMNS.test(t))).toBe(
    true,
  );
  expect(['(r.unit_price * 100)::bigint', 't.price / 100.0', '$2::numeric'].every((t) => CONVERSION.test(t))).toBe(true);
  expect(['price_halalas', "'amount_sar'", 'now() * 1000', 'x / 1000'].some((t) => OLD_COLUMNS.test(t) || CONVERSION.test(t))).toBe(false);
  expect(templateText('`select a from t where b = ${x * 100}`')).toEqual(['`select a from t where b =  `']);
});

it('names no numeric SAR column in any statement', () => {
  const offenders = files.filter(({ code }) => templateText(code).some((t) => OLD_COLUMNS.test(t)) || /'[^'\n]*\bprice_sar/.test(code));
  expect(offenders.map((f) => f.file)).toEqual([]);
});

it('converts no money between SAR and halalas in SQL', () => {
  // Exchange rates are not money: a statement writing rate snapshots may cast a rate to numeric (the column's type).
  const offenders = files.filter(({ code }) => templateText(code).some((t) => CONVERSION.test(t) && !/\bfx_rate_snapshots\b/.test(t)));
  expect(offenders.map((f) => f.file)).toEqual([]);
});
