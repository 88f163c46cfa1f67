import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Where `npm start` (scripts/stack.sh) writes the URL of the database it runs. */
export const STACK_DATABASE_FILE = path.resolve(__dirname, '..', '..', '..', '.data', 'logs', 'database.out');

/** The database URL the running local stack printed, or null when no stack has printed one. */
export async function stackDatabaseUrl(file = STACK_DATABASE_FILE): Promise<string | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return /^DATABASE_URL=(.+)$/m.exec(text)?.[1] ?? null;
}
