import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stackDatabaseUrl } from '../../src/cli/stack-database';

// create-user and the B2B demo find the running stack's database in the file scripts/stack.sh writes.
describe('stackDatabaseUrl', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'stack-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the URL the stack printed last', async () => {
    const file = path.join(dir, 'database.out');
    writeFileSync(file, 'starting\nDATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/activation_sys\n');
    await expect(stackDatabaseUrl(file)).resolves.toBe('postgres://postgres:postgres@127.0.0.1:54329/activation_sys');
  });

  it('answers null when no stack has printed one', async () => {
    await expect(stackDatabaseUrl(path.join(dir, 'missing.out'))).resolves.toBeNull();
    const empty = path.join(dir, 'empty.out');
    writeFileSync(empty, '');
    await expect(stackDatabaseUrl(empty)).resolves.toBeNull();
  });
});
