/**
 * Whole halalas of a fixture's SAR text ("49.50" → 4950, "398.5" → 39850, "99" → 9900), from the digits:
 * fixtures state prices as the answers print them, the columns hold integers. Anything but a
 * non-negative amount with at most 2 decimals is a mistake in the fixture.
 */
export function halalasOfSar(sar: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(sar);
  if (!match) throw new Error(`fixture amount is not SAR with at most 2 decimals: ${sar}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
