/**
 * Issue 31: "OpenTelemetry ... configured by the standard `OTEL_*` environment variables; parent-based
 * ratio sampling ... With tracing off (no exporter, or `OTEL_SDK_DISABLED=true`) no instrumentation is
 * registered" and "No personal data in any span: URL attributes without the query string, no phone,
 * e-mail, id number, name, code or token in any attribute". The pieces of src/telemetry that read the
 * variables and clean the spans; test/e2e/telemetry-off.test.ts checks what a process registers.
 */
import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { cleanAttributes } from '../../src/telemetry/redact';
import { DEFAULT_SAMPLE_RATIO, samplerOf, tracesExporters } from '../../src/telemetry/tracing';

describe('tracesExporters: tracing is on only when spans have somewhere to go', () => {
  it('is off with nothing configured (the SDK alone would send to an OTLP collector on localhost)', () => {
    expect(tracesExporters({})).toEqual([]);
  });

  it('sends OTLP when an endpoint is set and OTEL_TRACES_EXPORTER is not', () => {
    expect(tracesExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual(['otlp']);
    expect(tracesExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toEqual(['otlp']);
  });

  it('follows OTEL_TRACES_EXPORTER: a list, and `none` wins', () => {
    expect(tracesExporters({ OTEL_TRACES_EXPORTER: 'console' })).toEqual(['console']);
    expect(tracesExporters({ OTEL_TRACES_EXPORTER: 'otlp, console,otlp' })).toEqual(['otlp', 'console']);
    expect(tracesExporters({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual([]);
  });
});

describe('samplerOf', () => {
  const traceIdKeptAt = (ratio: number) => {
    // A trace id whose low 32 bits put it just inside (or outside) the ratio's bound.
    const bound = Math.floor(ratio * 0xffffffff);
    return (within: boolean) => `${'0'.repeat(24)}${(within ? bound - 1 : bound + 1).toString(16).padStart(8, '0')}`;
  };
  const decide = (sampler: ReturnType<typeof samplerOf>, traceId: string, parent?: 'sampled' | 'dropped') => {
    const parentContext = parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: '00000000000000aa',
          traceFlags: parent === 'sampled' ? TraceFlags.SAMPLED : TraceFlags.NONE,
          isRemote: true,
        })
      : context.active();
    return sampler.shouldSample(parentContext, traceId, 'GET /x', SpanKind.SERVER, {}, []).decision;
  };

  it('is parent-based with a 10% ratio at the root when OTEL_TRACES_SAMPLER is unset', () => {
    const sampler = samplerOf({});
    expect(sampler).toBeInstanceOf(ParentBasedSampler);
    expect(sampler.toString()).toContain(`TraceIdRatioBased{${DEFAULT_SAMPLE_RATIO}}`);
    const id = traceIdKeptAt(DEFAULT_SAMPLE_RATIO);
    expect(decide(sampler, id(true))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(sampler, id(false))).toBe(SamplingDecision.NOT_RECORD);
    // A parent's decision wins over the ratio, both ways.
    expect(decide(sampler, id(false), 'sampled')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(sampler, id(true), 'dropped')).toBe(SamplingDecision.NOT_RECORD);
  });

  it('takes the ratio from OTEL_TRACES_SAMPLER_ARG, and the specification sampler names', () => {
    expect(samplerOf({ OTEL_TRACES_SAMPLER_ARG: '0.5' }).toString()).toContain('TraceIdRatioBased{0.5}');
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBeInstanceOf(TraceIdRatioBasedSampler);
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'always_off' }).toString()).toBe('AlwaysOffSampler');
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }).toString()).toContain('root=AlwaysOnSampler');
  });
});

describe('cleanAttributes: what leaves the process in a span', () => {
  it('keeps URLs without their query string and drops the query itself', () => {
    expect(
      cleanAttributes({
        'url.path': '/admin/users',
        'url.query': 'phone=%2B966512345678',
        'url.full': 'http://127.0.0.1:3000/admin/users?search=Noura%20Saleh',
        'http.target': '/b2b/roster?search=%2B966512345678',
        'http.url': 'https://sms.example/send?to=966512345678',
        'http.route': '/admin/users',
        'http.response.status_code': 200,
      }),
    ).toEqual({
      'url.path': '/admin/users',
      'url.full': 'http://127.0.0.1:3000/admin/users',
      'http.target': '/b2b/roster',
      'http.url': 'https://sms.example/send',
      'http.route': '/admin/users',
      'http.response.status_code': 200,
    });
  });

  it('drops an attribute whose name says it holds a credential or contact data', () => {
    expect(
      cleanAttributes({
        'http.request.header.authorization': ['Bearer x'],
        'http.request.header.cookie': ['sid=1'],
        'user.email': 'a@b.example',
        'enduser.phone': '+966512345678',
        'db.system': 'postgresql',
      }),
    ).toEqual({ 'db.system': 'postgresql' });
  });
});
