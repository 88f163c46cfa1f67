import type { EmbeddedDatabase } from '../../src/db/embedded';

export default async function globalTeardown(): Promise<void> {
  const db = (globalThis as { __TEST_PG__?: EmbeddedDatabase }).__TEST_PG__;
  await db?.stop();
}
