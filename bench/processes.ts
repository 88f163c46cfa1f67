/** Process helpers shared by the bench phases (run.ts, webhook-burst.ts). */

/** Whether a process exists (one of another user counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
