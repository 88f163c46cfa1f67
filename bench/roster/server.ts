/**
 * The roster phase's server (bench/roster.ts): its own child process (this file forked with
 * `--serve-roster`), like the other phases' servers, so the load generator never shares its
 * event loop. The app, timed per URL for the roster and the control, capturing the roster
 * statements' texts; a b2b_admin of the bench company signs up and in through HTTP.
 */
import type { ChildProcess } from 'node:child_process';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { asker } from '../lib/processes';
import { signedInCompanyAdmin, type CompanyAdmin } from '../lib/sign-up';
import { forkTimedApp, serveTimedApp, type TimedAppDeps } from '../lib/timed-app';
import { captureStatements, type TimingSamples } from '../lib/timing';

const PHONE = '+966512349876';
/** The statements GET /b2b/roster prepares (src/roster/repository.ts), by their names. */
const STATEMENTS = { page: 'roster-page-all', total: 'roster-total-counted', searchPage: 'roster-page-q', searchTotal: 'roster-total-q' };

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; fixture: CompanyAdmin }
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> }
  | { type: 'sql'; statements: Record<string, string> };

async function serveRoster(): Promise<void> {
  const messages = createMemoryMessageSender();
  let statements: Record<string, string> = {};
  await serveTimedApp({
    messages,
    timed: ['/b2b/roster', '/auth/session'],
    method: 'GET',
    beforeApp: (pool) => (statements = captureStatements(pool, STATEMENTS)),
    handle: (msg) => (msg === 'sql' ? { type: 'sql', statements: { ...statements } } : undefined),
    fixture: async (baseUrl, pool) => ({
      fixture: await signedInCompanyAdmin(baseUrl, pool, messages.messages, { phone: PHONE, crNumber: '9000000001', name: 'Roster bench' }),
    }),
  });
}

// ---------------------------------------------------------------------------
// The parent's side
// ---------------------------------------------------------------------------

export interface RosterServer {
  proc: ChildProcess;
  port: number;
  fixture: CompanyAdmin;
}

export async function startRosterServer(deps: TimedAppDeps): Promise<RosterServer> {
  // No kept answers: the phase times the roster read itself (a kept one would answer every repeat).
  const { proc, ready } = await forkTimedApp<Ready>(deps, {
    file: __filename,
    flag: '--serve-roster',
    name: 'roster server',
    env: { PORTAL_CACHE_MS: '0' },
  });
  return { proc, port: ready.port, fixture: ready.fixture };
}

export const askRoster = asker<FromChild>();

if (require.main === module && process.argv[2] === '--serve-roster') void serveRoster();
