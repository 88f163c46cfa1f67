// Issue 35 item 3: "one LISTEN helper used by the caches and the relays". Checked on the tree: only
// src/db/listener.ts sends LISTEN or UNLISTEN or hears a connection's notifications, and the session
// cache, the portal's read cache and the relay loop (every relay runs in it) each keep one of its listeners.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const ROOTS = ['src', 'activities', 'worker', 'workflows', 'bench'];
const HELPER = 'src/db/listener.ts';
const USERS = ['src/auth/session-cache.ts', 'src/db/read-cache.ts', 'src/relay/loop.ts'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

/** The code without its comments (which may well say LISTEN). */
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const files = ROOTS.flatMap(sourceFiles)
  .filter((file) => !file.startsWith('src/db/migrations/'))
  .map((file) => ({ file, code: withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8')) }));

/** A statement text that starts with LISTEN or UNLISTEN, or a handler of a connection's notifications. */
const LISTENS = /[`'"]\s*(UN)?LISTEN\s|\.on\(\s*['"`]notification['"`]/i;

it('finds the rule on what it is for', () => {
  expect(
    ["client.query('LISTEN auth_changed')", 'c.query(`unlisten ${channel}`)', "c.on('notification', f)"].every((t) => LISTENS.test(t)),
  ).toBe(true);
  expect(['`${name}: lost its LISTEN connection`', "server.on('listening', f)"].some((t) => LISTENS.test(t))).toBe(false);
});

it('LISTENs in src/db/listener.ts only', () => {
  expect(files.find((f) => f.file === HELPER)?.code).toMatch(LISTENS);
  expect(files.filter(({ file, code }) => file !== HELPER && LISTENS.test(code)).map((f) => f.file)).toEqual([]);
});

it('the caches and the relay loop listen through it', () => {
  for (const file of USERS) {
    const code = files.find((f) => f.file === file)?.code ?? '';
    expect([file, /from '(\.\/|\.\.\/db\/)listener'/.test(code) && /createListener\(/.test(code)]).toEqual([file, true]);
  }
});
