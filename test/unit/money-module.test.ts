import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Issue 35 item 3: "One money module for every currency and unit". Checked on the tree: src/lib/money.ts
// is the only module that turns an amount into its units or back (times or divides by 100, or by a
// power of ten), and the only module named after money. The migrations and the superseded SQL function
// definitions are history and are not read; SQL arithmetic is test/unit/money-in-sql.test.ts's.
const ROOT = path.resolve(__dirname, '..', '..');
const ROOTS = ['src', 'activities', 'worker', 'workflows'];
const MONEY = 'src/lib/money.ts';
/**
 * Arithmetic on 100 that is not a unit conversion: the VAT of a total is total × p / (100 + p), p a
 * percentage read exactly as p·10^k over 10^k (src/documents/vat.ts, test/unit/vat.test.ts).
 */
const NOT_MONEY_UNITS = new Set(['src/documents/vat.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** The code without its comments (a comment may say "SAR × 100"). */
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const files = ROOTS.flatMap((root) => sourceFiles(path.join(ROOT, root)))
  .map((full) => ({ file: path.relative(ROOT, full), code: withoutComments(readFileSync(full, 'utf8')) }))
  .filter(({ file }) => !file.startsWith('src/db/migrations/') && !file.startsWith('src/db/functions/superseded/'));

/** `x * 100`, `x / 100`, `100 * x`, `100n * x`, decimal.js's `.times(100)`, `.div(100)`, `.pow(`: a conversion between units. */
const CONVERSION = /[*/]\s*100(n|\.0+)?(?![\d_.])|(?<![\d_.])100n?\s*[*/](?!\/)|\.(times|mul|div|dividedBy)\(\s*100\b|\.pow\(/;

it('finds the rule on what it is for', () => {
  expect(
    ['n / 100', 'exact.times(100)', 'cents * 100', '100 * sar', 'BigInt(x) * 100n', 'new Decimal(10).pow(2)'].every((t) =>
      CONVERSION.test(t),
    ),
  ).toBe(true);
  expect(
    ['x / 1000', 'limit * 1000', '100_000_000_00', 'max(100)', 'length(100)', 'x % 100n', '1.00 * y'].some((t) => CONVERSION.test(t)),
  ).toBe(false);
  expect(withoutComments('a; // cents * 100\n/** SAR × 100 * 100 */ b')).not.toMatch(CONVERSION);
});

it('converts amounts and units in src/lib/money.ts only', () => {
  expect(files.some(({ file, code }) => file === MONEY && CONVERSION.test(code))).toBe(true);
  const offenders = files
    .filter(({ file }) => file !== MONEY && !NOT_MONEY_UNITS.has(file))
    .flatMap(({ file, code }) =>
      code.split('\n').flatMap((line, i) => (CONVERSION.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  expect(offenders).toEqual([]);
});

it('has one module named after money', () => {
  const named = files.map((f) => f.file).filter((file) => /(^|\/)(money|halalas|cents|currency|currencies)\.ts$/.test(file));
  expect(named).toEqual([MONEY]);
});
