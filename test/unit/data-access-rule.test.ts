import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The data rule of docs/architecture.md, checked on the tree: SQL only in an area's repository or
// reads module (and src/db, the migrations, the relay's statement builder), one placeholder style,
// no MikroORM outside the schema and its migrations, no second way to a pool.
const ROOT = path.resolve(__dirname, '..', '..');
const SOURCE_ROOTS = ['src', 'activities', 'worker', 'workflows'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const files = SOURCE_ROOTS.flatMap((root) => sourceFiles(path.join(ROOT, root))).map((full) => ({
  file: path.relative(ROOT, full),
  // Comments say what SQL does in words; only code counts.
  code: readFileSync(full, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, ''),
}));

const SQL_STATEMENT = /\b(select\s+[\w*(]|insert\s+into\b|delete\s+from\b|update\s+\w+\s+set\b)/i;
const holdsSql = (file: string) =>
  /(^|\/|-)(repository|reads)\.ts$/.test(file) || file.startsWith('src/db/') || file === 'src/relay/statements.ts';
const inSchema = (file: string) => file.startsWith('src/db/') || file.startsWith('src/entities/') || file === 'src/cli/migration-create.ts';

it('finds SQL only in repository and reads modules (and src/db, migrations included)', () => {
  expect(['select id from users', 'insert into x', 'update users set a = 1', 'delete from t'].every((t) => SQL_STATEMENT.test(t))).toBe(
    true,
  );
  const offenders = files.filter(({ file, code }) => !holdsSql(file) && SQL_STATEMENT.test(code)).map(({ file }) => file);
  expect(offenders).toEqual([]);
});

it('uses $n placeholders only: no ORM-style ? in any statement', () => {
  // A `?` placeholder sits after an operator, a comma or a parenthesis, inside SQL text.
  const questionMark = /(=|<|>|,|\(|\bin|\blike|\bthen|\band|\bor)\s*\?(?=\s|,|\)|::|$)/im;
  // The check itself sees what it is for (and lets optional chaining and ternaries be).
  expect(['where id = ?', 'values (?, ?)', 'any(?::uuid[])'].every((t) => questionMark.test(t))).toBe(true);
  expect(['a?.b', 'x ? y : z', 'where id = $1'].some((t) => questionMark.test(t))).toBe(false);
  const offenders = files.filter(({ file, code }) => holdsSql(file) && !file.includes('/migrations/') && questionMark.test(code));
  expect(offenders.map((f) => f.file)).toEqual([]);
});

it('keeps MikroORM to the schema (entities) and its migrations', () => {
  const offenders = files.filter(({ file, code }) => !inSchema(file) && /from '@mikro-orm\//.test(code)).map(({ file }) => file);
  expect(offenders).toEqual([]);
  const entityManager = files.filter(({ code }) => /\bEntityManager\b|\.em\.fork\(|transactional\(/.test(code)).map(({ file }) => file);
  expect(entityManager).toEqual([]);
});

it('reaches the pool only through the data interface (LISTEN clients excepted)', () => {
  // A statement on the pool or a client of it, other than LISTEN/UNLISTEN on a dedicated connection.
  const rawQuery = /\b(pool|client)\.query\((?!\s*[`'](UN)?LISTEN)/;
  const offenders = files.filter(({ file, code }) => !file.startsWith('src/db/') && rawQuery.test(code)).map(({ file }) => file);
  expect(offenders).toEqual([]);
});
