import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { letOthersTraverse } from '../../src/lib/files';

describe('letOthersTraverse (the embedded server runs as another user)', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'traverse-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const mode = () => statSync(folder).mode & 0o7777;

  it('adds read and search for others and keeps the other bits', async () => {
    await chmod(folder, 0o1700);
    await letOthersTraverse(folder);
    expect(mode().toString(8)).toBe('1705');
  });

  it('leaves a folder others can already traverse as it is (a shared /tmp keeps 1777)', async () => {
    await chmod(folder, 0o1777);
    await letOthersTraverse(folder);
    expect(mode().toString(8)).toBe('1777');
  });
});
