// The count of one-time-code messages given up (refused for good, or their code expired before a
// provider took them), kept by the process that gave them up and logged with each one; operators
// count the same across processes from the `failed` rows of message_outbox (docs/runbook.md).
export interface UndeliveredCount {
  /** Adds one; returns the new total of this process. */
  add(): number;
  count(): number;
}

export function createUndeliveredCount(): UndeliveredCount {
  let total = 0;
  return {
    add: () => (total += 1),
    count: () => total,
  };
}
