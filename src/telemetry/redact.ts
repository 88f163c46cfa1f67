// No personal data leaves the process in a span. A collector keeps what it receives, and what it keeps
// cannot be erased with the person (docs/decisions/personal-data-and-logs.md), so every span is cleaned
// on its way to the exporter, whoever made it (the HTTP, Express, pg and fetch instrumentations,
// Temporal's interceptors, the workflow spans from the sandbox):
//
// - URLs lose their query string: `GET /admin/users?phone=…` and `/b2b/roster?search=<name>` would
//   carry the person in `url.query`, `url.full` or `http.target`; paths hold ids only.
// - An attribute whose name says it holds a credential or contact data (the loggers' rule, isCensored:
//   `…authorization`, `…cookie`, `…email`, `…phone`, `…token`) is dropped.
//
// Cleaning at export costs only the spans kept (sampled), off the request's path.
import type { Attributes, Link } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { isCensored } from '../lib/censored-keys';

/** Attributes that hold a URL or a request target: kept without their query string. */
const URL_KEYS = new Set(['url.full', 'url.original', 'http.url', 'http.target']);
/** Attributes that are nothing but a query string. */
const QUERY_KEYS = new Set(['url.query']);

const withoutQuery = (value: string) => value.split('?')[0];

export function cleanAttributes(attributes: Attributes): Attributes {
  const clean: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (QUERY_KEYS.has(key) || isCensored(key.replace(/\./g, ''))) continue;
    clean[key] = URL_KEYS.has(key) && typeof value === 'string' ? withoutQuery(value) : value;
  }
  return clean;
}

/** A copy of `span` with clean attributes, its events' and its links' too. */
export function cleanSpan(span: ReadableSpan): ReadableSpan {
  const events: TimedEvent[] = span.events.map((e) => (e.attributes ? { ...e, attributes: cleanAttributes(e.attributes) } : e));
  const links: Link[] = span.links.map((l) => (l.attributes ? { ...l, attributes: cleanAttributes(l.attributes) } : l));
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: cleanAttributes(span.attributes),
    links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** `exporter`, handed clean copies of the spans. */
export function withoutPersonalData(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => exporter.export(spans.map(cleanSpan), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
