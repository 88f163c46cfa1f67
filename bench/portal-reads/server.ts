/**
 * The portal-reads phase's server (bench/portal-reads.ts): the app in its own child process (this
 * file forked with `--serve-portal-reads`, with --cpu-prof when the bench is asked for it). A
 * b2b_admin of an approved company and a super_admin sign up and in through HTTP. It also counts
 * the statements the app sends to PostgreSQL (every `query` of a pg client, BEGIN and COMMIT
 * included), which the parent reads before and after each measurement ('statements').
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { PROFILE_DIR } from '../lib/paths';
import { asker, forkChild } from '../lib/processes';
import { signedInCompanyAdmin, signedInUser, type CompanyAdmin } from '../lib/sign-up';
import { serveTimedApp, type TimedAppDeps } from '../lib/timed-app';

const ADMIN_PHONE = '+966512340031';
const STAFF_PHONE = '+966512340032';

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; admin: CompanyAdmin; staffToken: string }
  | { type: 'failed'; error: string }
  | { type: 'cpu'; micros: number }
  | { type: 'statements'; count: number };

/** Every statement any pg client of this process sends (pool.query goes through a client's query too). */
function countStatements(): () => number {
  let count = 0;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    count++;
    return original.apply(this, args);
  };
  return () => count;
}

async function servePortalReads(): Promise<void> {
  const statements = countStatements();
  const messages = createMemoryMessageSender();
  await serveTimedApp({
    messages,
    timed: [],
    handle: (msg) => (msg === 'statements' ? { type: 'statements', count: statements() } : undefined),
    fixture: async (baseUrl, pool) => ({
      admin: await signedInCompanyAdmin(baseUrl, pool, messages.messages, {
        phone: ADMIN_PHONE,
        crNumber: '9200000001',
        name: 'Portal reads bench',
      }),
      staffToken: (
        await signedInUser(baseUrl, messages.messages, { phone: STAFF_PHONE, name: 'Portal reads staff' }, async (id) => {
          await pool.query(`update users set app_role = 'super_admin' where id = $1`, [id]);
        })
      ).token,
    }),
  });
}

// ---------------------------------------------------------------------------
// The parent's side
// ---------------------------------------------------------------------------

export interface PortalServer {
  proc: ChildProcess;
  port: number;
  admin: CompanyAdmin;
  staffToken: string;
}

export const askPortal = asker<FromChild>();

export async function startPortalServer(deps: TimedAppDeps & { cpuProf: boolean }): Promise<PortalServer> {
  const execArgv = deps.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--cpu-prof-name=portal-reads.cpuprofile'] : [];
  const { proc, ready } = await forkChild<Ready>('the portal-reads server', __filename, ['--serve-portal-reads'], {
    env: { ...process.env, BENCH_DATABASE_URL: deps.databaseUrl },
    execArgv,
    onCleanup: deps.onCleanup,
  });
  return { proc, port: ready.port, admin: ready.admin, staffToken: ready.staffToken };
}

if (require.main === module && process.argv[2] === '--serve-portal-reads') void servePortalReads();
