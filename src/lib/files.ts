import { chmod, stat } from 'node:fs/promises';

/** Adds read and search for others, keeping every other bit (a shared parent such as /tmp keeps 1777). */
export async function letOthersTraverse(folder: string): Promise<void> {
  const { mode } = await stat(folder);
  if ((mode & 0o005) !== 0o005) await chmod(folder, (mode & 0o7777) | 0o005);
}
