// Child processes and ports for the tests that run the compiled API and worker (test/e2e) or a
// server of their own on loopback: one way to pick a port, start, stop and call them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';

/** Ports this process handed out: the OS may give a just-closed port again, and two servers of one test must not share one. */
const handedOut = new Set<number>();

/** A port nothing listens on right now (the OS picks it on loopback), never one this process handed out before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** Resolves with the signal or exit code once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode ?? child.exitCode);
    child.once('exit', (code, signal) => resolve(signal ?? code));
  });
}

/** Sends `signal` unless `child` has exited already, and waits for the exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await exited(child);
}

/**
 * Compiled scripts under `dist` started as Node processes, tracked until they exit so `stopAll` can
 * end what is left; a process that fails prints the end of its output.
 */
export function compiledProcesses(dist: string) {
  const children = new Set<ChildProcess>();
  return {
    start(script: string, environment: NodeJS.ProcessEnv, name = script): ChildProcess {
      const child = spawn(process.execPath, [path.join(dist, script)], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('exit', (code) => {
        children.delete(child);
        if (code && code !== 0) console.error(`${name} exited ${code}:\n${output.slice(-4000)}`);
      });
      children.add(child);
      return child;
    },
    stopAll: () => Promise.all([...children].map((child) => stopProcess(child))),
  };
}

/** A call as a mobile client makes it; `T` is the route's response type (nothing checks it at run time). */
export async function mobileCall<T = unknown>(baseUrl: string, method: string, route: string, body?: unknown, token?: string) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-type': 'mobile', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** The newest one-time code sent to `to`, read from the file message provider's output. */
export function lastCode(messagesFile: string, to: string): string {
  const code = codesTo(messagesFile, to).at(-1);
  if (!code) throw new Error(`no code was sent to ${to}`);
  return code;
}

function codesTo(messagesFile: string, to: string): string[] {
  if (!existsSync(messagesFile)) return [];
  return readFileSync(messagesFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { to: string; text: string })
    .filter((m) => m.to === to)
    .map((m) => /\b(\d{6})\b/.exec(m.text)?.[1])
    .filter((code): code is string => !!code);
}

/** How many one-time codes `to` was sent so far (before asking for one more). */
export function codeOf(messagesFile: string, to: string): number {
  return codesTo(messagesFile, to).length;
}

/** The first code sent to `to` after `sentBefore` codes, waited for (the sender may be a relay). */
export async function newCode(messagesFile: string, to: string, sentBefore: number, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const codes = codesTo(messagesFile, to);
    if (codes.length > sentBefore) return codes[codes.length - 1];
    if (Date.now() > until) throw new Error(`no new code for ${to} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
