/**
 * The B2B phase's server (bench/b2b.ts): its own child process (this file forked with
 * `--serve-b2b`), like the other phases' servers, so the client never shares its event loop. Both
 * companies' admins sign up and in through HTTP; messages go to the development sink the app uses
 * without providers (createFileMessageSender, one JSON line per message, in a file of the parent's).
 */
import type { ChildProcess } from 'node:child_process';
import { createFileMessageSender, createMemoryMessageSender, type MessageSender } from '../../src/providers/messages';
import { asker } from '../lib/processes';
import { signedInCompanyAdmin, type CompanyAdmin } from '../lib/sign-up';
import { forkTimedApp, serveTimedApp, type TimedAppDeps } from '../lib/timed-app';
import type { TimingSamples } from '../lib/timing';

const ADMINS = { links: '+966512340011', billing: '+966512340012' } as const;
export const CONTROL = '/auth/session';
/** The purpose src/links gives an invitation message. */
export const INVITATION = 'b2b.invitation';

type Ready = Extract<FromChild, { type: 'ready' }>;
type FromChild =
  | { type: 'ready'; port: number; admins: Record<keyof typeof ADMINS, CompanyAdmin> }
  | { type: 'failed'; error: string }
  | { type: 'timing'; samples: Record<string, TimingSamples> };

/** The development sink (a JSON line per message in a file), and a copy in memory for the admins' OTPs. */
function teeSender(file: string): MessageSender & { messages: { to: string; text: string }[] } {
  const sink = createFileMessageSender(file);
  const memory = createMemoryMessageSender();
  return {
    messages: memory.messages,
    async send(message) {
      await sink.send(message);
      if (message.purpose !== INVITATION) await memory.send(message);
    },
  };
}

async function serveB2b(): Promise<void> {
  const messages = teeSender(process.env.BENCH_MESSAGES_FILE ?? '');
  await serveTimedApp({
    messages,
    timed: ['/b2b/billing', '/b2b/roster/links/', CONTROL],
    fixture: async (baseUrl, pool) => ({
      admins: {
        links: await signedInCompanyAdmin(baseUrl, pool, messages.messages, {
          phone: ADMINS.links,
          crNumber: '9100000001',
          name: 'B2B bench links company',
        }),
        billing: await signedInCompanyAdmin(baseUrl, pool, messages.messages, {
          phone: ADMINS.billing,
          crNumber: '9100000002',
          name: 'B2B bench billing company',
        }),
      },
    }),
  });
}

// ---------------------------------------------------------------------------
// The parent's side
// ---------------------------------------------------------------------------

export interface B2bServer {
  proc: ChildProcess;
  port: number;
  admins: Record<keyof typeof ADMINS, CompanyAdmin>;
}

export const askB2b = asker<FromChild>();

export async function startB2bServer(deps: TimedAppDeps, messagesFile: string): Promise<B2bServer> {
  const { proc, ready } = await forkTimedApp<Ready>(deps, {
    file: __filename,
    flag: '--serve-b2b',
    name: 'b2b server',
    // No kept answers: the phase times the billing read itself (a kept one would answer every repeat).
    env: { BENCH_MESSAGES_FILE: messagesFile, PORTAL_CACHE_MS: '0' },
  });
  return { proc, port: ready.port, admins: ready.admins };
}

if (require.main === module && process.argv[2] === '--serve-b2b') void serveB2b();
