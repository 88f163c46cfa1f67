/** Small number helpers shared by the bench phases. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface LatencyStats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentiles: p99 of 1,000 samples is the 990th smallest. */
export function latencyStats(values: number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return {
    n: sorted.length,
    p50: median(sorted),
    p90: at(0.9),
    p99: at(0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

export function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
