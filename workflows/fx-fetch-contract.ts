// The FX fetch's contract: its result, imported by the schedule (src/store/schedules.ts), the workflow and the tests.

/** `fetched`: a snapshot per currency was appended. `failed`: the source gave nothing usable; the last rates stay (logged). */
export type FxFetchResult =
  { status: 'fetched'; source: string; currencies: string[]; fetchedAt: string } | { status: 'failed'; reason: string };
