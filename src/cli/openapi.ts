// Prints the served OpenAPI document (the same one GET /openapi.json answers) without a
// database or Temporal: `npm run openapi > openapi.json` for code generators and API tools.
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { Pool } from 'pg';
import { createApp } from '../app';
import { loadConfig } from '../config';
import { createLogger } from '../http/logger';
import { createMemoryMessageSender } from '../providers/messages';
import { createDb } from '../db/sql';

async function main(): Promise<void> {
  // Nothing connects: building the document registers routes only; the session cache stays off.
  const config = loadConfig({ ...process.env, SESSION_CACHE_SECONDS: '0' });
  const pool = new Pool({ connectionString: 'postgres://unused@127.0.0.1:1/unused' });
  const app = createApp({ config, db: createDb(pool), logger: createLogger('silent'), messages: createMemoryMessageSender() });
  process.stdout.write(`${JSON.stringify((app.locals.openapi as () => OpenAPIObject)(), null, 2)}\n`);
  await (app.locals.stop as () => Promise<void>)();
  await pool.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
