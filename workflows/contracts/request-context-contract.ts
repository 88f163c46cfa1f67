// Shared by the Temporal client and worker (src/telemetry/temporal.ts) and the workflow interceptors
// (./request-context.ts): the header that carries the id of the request that started a run.

/** Temporal header (a JSON string payload) naming the API request a run, or an activity of it, belongs to. */
export const REQUEST_ID_HEADER = 'activation-sys-request-id';
