/**
 * What the bench reads from /proc: CPU time of processes (PostgreSQL's, the webhook phase's
 * children) and command lines (to tell a leftover process from a reused pid).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (the Linux default when getconf fails). */
export function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

interface ProcStat {
  ppid: number;
  /** utime + stime of all its threads, in clock ticks. */
  own: number;
  /** cutime + cstime: of its children it has reaped. */
  reaped: number;
}

export function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // Fields after the name: state, ppid, ... utime (14th field), stime, cutime, cstime.
    return { ppid: f[1], own: f[11] + f[12], reaped: f[13] + f[14] };
  } catch {
    return undefined;
  }
}

/** A process's command line, NUL-separated ('' when it cannot be read). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

const pids = () =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);

/**
 * Cumulative CPU time (microseconds) of the embedded PostgreSQL: the postmaster
 * (with its reaped children) plus its live backends, read from /proc. Returns
 * null where /proc is missing (the figures are then left out).
 */
export function postgresCpuMeter(port: number): () => number | null {
  if (!existsSync('/proc/self/stat')) return () => null;
  const ticksPerSecond = clockTicks();
  const postmaster = pids().find((pid) => {
    const argv = commandLine(pid).split('\0');
    return /postgres$/.test(argv[0] ?? '') && argv.some((a, i) => a === '-p' && argv[i + 1] === String(port));
  });
  if (postmaster === undefined) return () => null;
  return () => {
    const main = procStat(postmaster);
    if (!main) return null;
    let ticks: number = main.own + main.reaped;
    for (const pid of pids()) {
      const child: ProcStat | undefined = pid === postmaster ? undefined : procStat(pid);
      if (child?.ppid === postmaster) ticks += child.own;
    }
    return (ticks / ticksPerSecond) * 1e6;
  };
}
