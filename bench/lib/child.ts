/**
 * The child side of every bench server: each runs in its own process (a `fork` of a bench file),
 * so the server under test has a whole event loop to itself instead of sharing one thread with the
 * load generator. The parent sends 'stop', 'cpu' and any request of the server's own; the child
 * answers `{ type: 'ready', port, ... }` once it listens (and its fixtures are set up), or
 * `{ type: 'failed', error }`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { TimingSamples } from './timing';

/** What the server children answer (a phase's own servers may add fields to 'ready'). */
export type ToParent =
  | { type: 'ready'; port: number }
  | { type: 'failed'; error: string }
  | { type: 'cpu'; micros: number }
  | { type: 'timing'; samples: Record<string, TimingSamples> }
  | { type: 'sql'; statements: Record<string, string> };

export interface Built {
  app: Express;
  /** Serve this instead of `app` (e.g. `app` wrapped in a timer). */
  listener?: RequestListener;
  /** Runs once the server listens (e.g. sign-up through HTTP); its fields join the ready message. */
  ready?: (baseUrl: string) => Promise<Record<string, unknown>>;
  /** Answers the parent's requests other than 'stop' and 'cpu' (undefined: no answer). */
  handle?: (msg: unknown) => unknown;
  close?: () => Promise<void>;
}

/** Child process entry: build one server, listen on an ephemeral port, report, stop on request. */
export async function serveChild(build: () => Promise<Built>): Promise<void> {
  const send = (msg: unknown) => process.send?.(msg);
  let built: Built | undefined;
  let server: Server | undefined;
  const stop = async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await built?.close?.().catch(() => undefined);
    process.exit(0); // also writes the --cpu-prof profile
  };
  process.on('disconnect', () => void stop()); // the parent is gone: never outlive it
  process.on('message', (msg) => {
    if (msg === 'stop') void stop();
    else if (msg === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', micros: usage.user + usage.system });
    } else {
      const reply = built?.handle?.(msg);
      if (reply) send(reply);
    }
  });
  try {
    built = await build();
    const { app, listener } = built;
    server = await new Promise<Server>((resolve, reject) => {
      const s = listener ? createServer(listener).listen(0, '127.0.0.1', () => resolve(s)) : app.listen(0, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
    server.keepAliveTimeout = 65_000;
    const port = (server.address() as AddressInfo).port;
    send({ type: 'ready', port, ...(await built.ready?.(`http://127.0.0.1:${port}`)) });
  } catch (err) {
    send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await stop();
  }
}
