// What the end-to-end tests share: a Temporal dev server with the search attributes, a migrated test
// database with the demo catalog, a temp folder for the message sink, and the environment the compiled
// API and worker run with (configured payload keys, not the development key: the test's client shares them).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/activations';
import { dataConverterFromConfig } from '../../src/temporal/codec';
import { seedCatalog } from './activations';
import { createTestDatabase, type TestDatabase } from './db';
import { createLocalEnv, REPO_ROOT, uniqueTaskQueue } from './temporal';

export const DIST = path.join(REPO_ROOT, 'dist');

export interface StackFixture {
  env: TestWorkflowEnvironment;
  db: TestDatabase;
  databaseUrl: string;
  messagesFile: string;
  /** The environment of the API and worker processes. */
  common: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function openStackFixture(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StackFixture> {
  if (!existsSync(path.join(DIST, 'src/main.js'))) throw new Error('dist/ is missing: run `npm test` (it compiles first)');
  const payloadKeys = `e2e:${randomBytes(32).toString('base64')}`;
  const [env, db] = await Promise.all([
    createLocalEnv({
      server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) },
      client: { dataConverter: dataConverterFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: payloadKeys }) },
    }),
    createTestDatabase(5),
  ]);
  await seedCatalog(db);
  const tmp = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const messagesFile = path.join(tmp, 'messages.jsonl');
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${db.name}`;
  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.toString(),
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue(name),
    MESSAGES_FILE: messagesFile,
    MOCK_IDENTITY_DELAY_MS: '300',
    IDENTITY_POLL_INTERVAL_SECONDS: '1',
    TEMPORAL_PAYLOAD_KEYS: payloadKeys,
    ...extraEnv,
  };
  return {
    env,
    db,
    databaseUrl: url.toString(),
    messagesFile,
    common,
    async close() {
      await env.teardown();
      await db.drop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
