import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { functionFiles } from '../../src/db/functions';

// Issue 35 item 3, "every rule defined once": each SQL function's definition lives in one file of
// src/db/functions, named after it, and migrations apply that file (docs/decisions/sql-functions.md).
// Checked on the tree: no migration holds a function's text or rewrites one by substitution, each
// file defines the function it is named after, and no definition is in two files.
const ROOT = path.resolve(__dirname, '..', '..');
const FUNCTIONS = path.join(ROOT, 'src/db/functions');
const MIGRATIONS = path.join(ROOT, 'src/db/migrations');

const tsFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.ts'));
const read = (file: string) => readFileSync(file, 'utf8');
/** Code without comments: a comment may name a function or what a migration once did. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** A function's text in a migration, or a rewrite of one from the catalog (pg_get_functiondef, prosrc, replace). */
const FUNCTION_TEXT = /\bcreate\s+(or\s+replace\s+)?function\b/i;
const REWRITE = /\bpg_get_functiondef\b|\bprosrc\b|\b(regexp_)?replace\s*\(/i;
/** `create or replace function <name>(` */
const DEFINES = /\bcreate\s+(?:or\s+replace\s+)?function\s+(?:public\.)?(\w+)\s*\(/gi;

/** A definition's function name and its body (between the dollar quotes), whitespace collapsed. */
function definition(sql: string): { names: string[]; body: string } {
  const names = [...sql.matchAll(DEFINES)].map((m) => m[1].toLowerCase());
  const body = /\$\$([\s\S]*)\$\$/.exec(sql)?.[1] ?? '';
  return { names, body: body.replace(/\s+/g, ' ').trim() };
}

it('finds the rule on what it is for', () => {
  expect(['create or replace function f() returns trigger', 'CREATE FUNCTION x(a int)'].every((t) => FUNCTION_TEXT.test(t))).toBe(true);
  expect(
    [
      "declare d text := pg_get_functiondef('f()'::regprocedure);",
      'execute replace(definition, a, b)',
      'execute regexp_replace(d, p, r)',
      'select prosrc from pg_proc',
    ].every((t) => REWRITE.test(t)),
  ).toBe(true);
  expect(
    ['create trigger t after insert on x', 'drop function if exists f();', 'replacement'].some(
      (t) => FUNCTION_TEXT.test(t) || REWRITE.test(t),
    ),
  ).toBe(false);
  expect(definition('create or replace function public.f(p int) returns int language sql as $$ select  p\n $$;')).toEqual({
    names: ['f'],
    body: 'select p',
  });
});

it('no migration holds a function body or rewrites a function from its text', () => {
  const offenders = tsFiles(MIGRATIONS)
    .map((name) => ({ name, text: code(read(path.join(MIGRATIONS, name))) }))
    .filter(({ text }) => FUNCTION_TEXT.test(text) || REWRITE.test(text))
    .map(({ name }) => name);
  expect(offenders).toEqual([]);
});

it('no source outside src/db/functions defines a SQL function', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return full === FUNCTIONS ? [] : sources(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    });
  const offenders = ['src', 'activities', 'worker', 'workflows']
    .flatMap((root) => sources(path.join(ROOT, root)))
    .filter((file) => FUNCTION_TEXT.test(code(read(file))))
    .map((file) => path.relative(ROOT, file));
  expect(offenders).toEqual([]);
});

it('each file defines the one function it is named after, and the registry lists every file', () => {
  const current = tsFiles(FUNCTIONS).filter((name) => name !== 'index.ts');
  const superseded = tsFiles(path.join(FUNCTIONS, 'superseded'));
  expect(current.map((name) => name.replace(/\.ts$/, '')).sort()).toEqual(Object.keys(functionFiles.current).sort());
  expect(superseded.map((name) => name.replace(/\.ts$/, '')).sort()).toEqual(Object.keys(functionFiles.superseded).sort());

  for (const [name, sql] of Object.entries(functionFiles.current)) {
    expect({ name, defines: definition(sql).names }).toEqual({ name, defines: [name] });
  }
  for (const [version, sql] of Object.entries(functionFiles.superseded)) {
    const name = version.replace(/\.v\d+$/, '');
    expect({ version, defines: definition(sql).names }).toEqual({ version, defines: [name] });
  }
  // The module text is the registry's text: a file holds one String.raw literal and nothing interpolated.
  for (const file of [...current, ...superseded.map((name) => `superseded/${name}`)]) {
    const text = code(read(path.join(FUNCTIONS, file)));
    expect({ file, literals: text.match(/String\.raw`/g)?.length ?? 0, interpolates: text.includes('${') }).toEqual({
      file,
      literals: 1,
      interpolates: false,
    });
  }
});

it('no function body is in two files', () => {
  // Superseded definitions of a function are its earlier bodies, each different from the current one and each other.
  // (Distinct functions may share a body: portal_changed_contracts and portal_changed_roster_entries notify alike.)
  const files = [...Object.entries(functionFiles.current), ...Object.entries(functionFiles.superseded)].map(([file, sql]) => ({
    file,
    name: file.replace(/\.v\d+$/, ''),
    body: definition(sql).body,
  }));
  const twice = files.filter((a) => files.some((b) => b !== a && b.name === a.name && b.body === a.body)).map(({ file }) => file);
  expect(twice).toEqual([]);
  const names = Object.keys(functionFiles.current);
  expect(new Set(names).size).toBe(names.length);
});
