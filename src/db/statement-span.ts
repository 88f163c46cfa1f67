// A span per statement of the data interface (src/db/sql.ts), made only inside a span that is kept.
//
// Not OpenTelemetry's pg instrumentation: it builds each statement's attributes and span, parses its
// text and wraps its callbacks whether the request's trace is kept or not (nine in ten are not, by
// default), and that alone cost a reading route more than tracing may (docs/benchmarks.md, "The
// per-request floor"). Here a statement outside a kept trace costs one look at the active span, and
// a kept one is named by its statement's name (`activation-reads-history-fa`), the text with its `$n`
// placeholders as `db.query.text` (values are never attributes: they are people's data). A failure
// sets the span's status with Postgres's code only: its message can quote a value.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('activation-sys/db');

/** The first word of a statement: select, insert, update, delete, with, … */
const operationOf = (text: string) => /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'query';

export function traceStatement<T>(statement: { name?: string; text: string }, run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const operation = operationOf(statement.text);
  const attributes = {
    'db.system.name': 'postgresql',
    'db.operation.name': operation,
    'db.query.text': statement.text,
    ...(statement.name ? { 'db.query.summary': statement.name } : {}),
  };
  return tracer.startActiveSpan(statement.name ?? operation, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
      throw err;
    } finally {
      span.end();
    }
  });
}
