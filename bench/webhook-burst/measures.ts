/**
 * What the webhook phase measures and checks, as data: the shapes burst.ts fills, checks.ts reads and
 * report.ts prints (their own module, so none of the three imports another for a type).
 */
import type { LatencyStats } from '../lib/stats';
import type { httpClient } from './fixtures';

/** CPU time (milliseconds) each process used during one batch. */
export interface CpuMs {
  api: number | null;
  worker: number | null;
  temporal: number | null;
  postgres: number | null;
  loadGenerator: number;
}

export interface Batch {
  request: string;
  requests: number;
  connections: number;
  wallSeconds: number;
  rps: number;
  latencyMs: LatencyStats;
  failures: number;
  /** The first failures: status (0: no answer) and body. */
  failureSamples: Array<{ status: number; body: string; what: string }>;
  cpuMs: CpuMs;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface Run {
  runId: string;
  status: string;
}

export interface Settled {
  /** performance.now() when every payment first read `completed`, or null. */
  completedAt: number | null;
  /** Receipt and paid_at as first seen completed, per payment. */
  firstSeen: Map<string, string>;
  /** Settlement runs by workflow id, once visibility listed the same closed runs twice in a row (or at the timeout). */
  runs: Map<string, Run[]>;
  stable: boolean;
}

export interface Measured {
  healthz: [Batch, Batch];
  ack: Batch;
  throughputRatio: number;
  p99Ratio: number;
  settled: Settled;
  /** performance.now() at the last acknowledgement. */
  burstEnd: number;
  /** Warm-up, GET /healthz before and the burst. */
  seconds: number;
  /** The client, for the phases after the burst. */
  http: ReturnType<typeof httpClient>;
}
