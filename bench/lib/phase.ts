/** What a phase of `npm run bench` is (one entry of run.ts's PHASES), and what the bench gives it. */
import type { AppServers, Child, ServerKind } from './servers';
import type { OnCleanup } from './processes';

/** The command line (run.ts parses it; its header lists the options). */
export interface Options {
  rounds: number;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  breakdown: boolean;
  cpuProf: boolean;
  /** GET /activations/history at its small size and then at historyRows activations. */
  historyRows: number;
  /** Sequential requests per page and table size (the roster's too, per request kind and size). */
  historyRequests: number;
  /** The fault matrix's journeys per fault. */
  faultJourneys: number;
  /** The phases that run, by name. */
  phases: Set<string>;
  /** --scenario: only these scenarios (and the baselines they are compared with); empty: all. */
  scenarios: Set<string>;
}

export interface PhaseContext {
  opts: Options;
  databaseUrl: string;
  /** Cumulative CPU microseconds of PostgreSQL, or null. */
  postgresCpu: () => number | null;
  /** Adds to the bench's clean-up list (runs on success, error and signals). */
  onCleanup: OnCleanup;
  /** Starts a server of lib/servers.ts in its own process (with --cpu-prof when asked). */
  startServer(kind: ServerKind, env?: Record<string, string>): Promise<Child>;
  /** The `app` server and the user it signed up, started once (with `kinds` besides, on the first call). */
  appServers(kinds: ServerKind[]): Promise<AppServers>;
}

export interface Phase<R = unknown> {
  /** On the command line (`--only <name>`, `--no-<name>`); in camel case, its key in results.json. */
  name: string;
  /** What the bench's first line announces it will do. */
  plan(opts: Options): string;
  /** Refuses options it cannot run with (throws), before anything starts. */
  check?(opts: Options): void;
  /** Runs the phase, printing as it goes; the result goes to results.json. */
  run(ctx: PhaseContext): Promise<R>;
  /** Its part of the bench's verdict (leave out for a phase without budget). */
  verdict?(result: R): 'PASS' | 'FAIL';
  /** Written to results.json when the phase does not run (default: nothing). */
  skipped?: R;
}
