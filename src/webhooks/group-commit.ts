/**
 * Group commit: calls that arrive while `maxInFlight` batches are running wait and go together as
 * the next batch (at most `maxBatch` items), so under load one statement — one round trip, one
 * commit — serves many webhook deliveries, and a lone call runs at once (no timer, no added
 * latency). Written here rather than taken from a library: DataLoader batches per event-loop tick,
 * not per round trip in flight, and this is the whole of it.
 *
 * `run` answers one result per item, in order. When it fails, every call of that batch fails (the
 * caller answers 500 and the provider redelivers); the next batch runs as usual.
 */
export function groupCommit<I, O>(
  run: (items: I[]) => Promise<O[]>,
  opts: { maxBatch: number; maxInFlight: number },
): (item: I) => Promise<O> {
  const waiting: { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }[] = [];
  let inFlight = 0;

  async function runBatch(batch: typeof waiting): Promise<void> {
    try {
      const results = await run(batch.map((b) => b.item));
      if (results.length !== batch.length) throw new Error(`group commit: ${batch.length} items, ${results.length} results`);
      batch.forEach((b, i) => b.resolve(results[i]));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }

  function pump(): void {
    while (inFlight < opts.maxInFlight && waiting.length > 0) {
      inFlight++;
      void runBatch(waiting.splice(0, opts.maxBatch)).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      pump();
    });
}
