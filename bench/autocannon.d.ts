// autocannon ships no type declarations; these are the parts bench/lib/load.ts uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Result {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number; average: number; max: number };
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }
  function autocannon(opts: Record<string, unknown>): Promise<autocannon.Result>;
  export = autocannon;
}
