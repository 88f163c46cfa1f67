/** What a command prints for a failure: the thrown value's message when it has one, else the value itself. */
export function messageOf(err: unknown): unknown {
  if (typeof err === 'object' && err !== null && 'message' in err && err.message != null) return err.message;
  return err;
}
