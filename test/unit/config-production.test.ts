import { ConfigError, loadConfig } from '../../src/config';
import { productionEnv } from '../helpers/production-env';

/** The error loadConfig throws for `env`, or a failure when it loads. */
function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration loaded');
}

/** The settings named in a ConfigError, one per line. */
function named(message: string): string[] {
  return [...message.matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]);
}

const without = (key: string): Record<string, string> => {
  const env = productionEnv();
  delete env[key];
  return env;
};

describe('production configuration', () => {
  it('loads a full production configuration', () => {
    const config = loadConfig(productionEnv());
    expect(config).toMatchObject({
      NODE_ENV: 'production',
      PAYMENT_PROVIDER: 'card_processor',
      EMAIL_PROVIDER: 'smtp',
      SMS_PROVIDER: 'http',
      IDENTITY_PROVIDER: 'http',
      OPERATOR_PROVIDER: 'http',
    });
  });

  it.each([
    ['PAYMENT_PROVIDER', 'mock', /PAYMENT_PROVIDER: mock is refused in production: it completes payments without taking money/],
    ['EMAIL_PROVIDER', 'file', /EMAIL_PROVIDER: file is refused in production/],
    ['SMS_PROVIDER', 'file', /SMS_PROVIDER: file is refused in production/],
    ['IDENTITY_PROVIDER', 'mock', /IDENTITY_PROVIDER: mock is refused in production/],
    ['OPERATOR_PROVIDER', 'mock', /OPERATOR_PROVIDER: mock is refused in production/],
  ])('refuses the stand-in %s=%s, naming it', (key, value, message) => {
    const text = refusal({ ...productionEnv(), [key]: value });
    expect(text).toMatch(message);
    expect(named(text)).toEqual([key]);
  });

  it.each(['JWT_SECRET', 'DATA_HASH_KEY', 'DATA_ENCRYPTION_KEY', 'CARD_PROCESSOR_WEBHOOK_SECRET', 'ESIM_PROVIDER_PUBLIC_KEY'])(
    'refuses the development default of %s, unset or pasted',
    (key) => {
      expect(named(refusal(without(key)))).toEqual([key]);
      // The development value spelled out is refused as well: it is public.
      const development = loadConfig({})[key as keyof ReturnType<typeof loadConfig>];
      expect(named(refusal({ ...productionEnv(), [key]: String(development) }))).toEqual([key]);
    },
  );

  it.each([
    [
      'TEMPORAL_PAYLOAD_KEYS',
      /TEMPORAL_PAYLOAD_KEYS: must be set in production \(unset, workflow payloads are encrypted with a development key\)/,
    ],
    ['DATABASE_URL', /DATABASE_URL: must be set in production/],
    ['PUBLIC_BASE_URL', /PUBLIC_BASE_URL: must be set in production/],
    ['ESIM_PROVIDER_MERCHANT_ID', /ESIM_PROVIDER_MERCHANT_ID: must be set in production/],
    ['SMTP_FROM', /SMTP_FROM: must be set in production/],
  ])('refuses %s left to its development default', (key, message) => {
    const text = refusal(without(key));
    expect(text).toMatch(message);
    expect(named(text)).toEqual([key]);
  });

  it.each([
    ['SMTP_HOST', 'EMAIL_PROVIDER=smtp'],
    ['SMS_HTTP_URL', 'SMS_PROVIDER=http'],
    ['IDENTITY_HTTP_URL', 'IDENTITY_PROVIDER=http'],
    ['OPERATOR_HTTP_ENDPOINTS', 'OPERATOR_PROVIDER=http'],
    ['CARD_PROCESSOR_API_KEY', 'PAYMENT_PROVIDER=card_processor'],
  ])('refuses a real provider without %s', (key, provider) => {
    const text = refusal(without(key));
    expect(text).toContain(`${key}: must be set when ${provider}`);
    expect(named(text)).toEqual([key]);
  });

  it('reads KEY= as unset, as in a .env file', () => {
    expect(named(refusal({ ...productionEnv(), TEMPORAL_PAYLOAD_KEYS: '', SMTP_HOST: '' }))).toEqual([
      'SMTP_HOST',
      'TEMPORAL_PAYLOAD_KEYS',
    ]);
  });

  it('lists every problem in one error, invalid values included', () => {
    const text = refusal({ NODE_ENV: 'production', PORT: 'eighty', TRUST_PROXY: 'nonsense' });
    expect(text.split('\n')[0]).toBe('Invalid configuration:');
    expect(named(text).sort()).toEqual(
      [
        'PORT',
        'TRUST_PROXY',
        'PAYMENT_PROVIDER',
        'EMAIL_PROVIDER',
        'SMS_PROVIDER',
        'IDENTITY_PROVIDER',
        'OPERATOR_PROVIDER',
        'JWT_SECRET',
        'DATA_HASH_KEY',
        'DATA_ENCRYPTION_KEY',
        'CARD_PROCESSOR_WEBHOOK_SECRET',
        'ESIM_PROVIDER_PUBLIC_KEY',
        'DATABASE_URL',
        'TEMPORAL_PAYLOAD_KEYS',
        'PUBLIC_BASE_URL',
        'ESIM_PROVIDER_MERCHANT_ID',
      ].sort(),
    );
  });

  it('leaves development alone: stand-ins and defaults load', () => {
    expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ PAYMENT_PROVIDER: 'mock', IDENTITY_PROVIDER: 'mock' });
    expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject({ EMAIL_PROVIDER: 'file', SMS_PROVIDER: 'file' });
  });
});

describe('real providers need their settings, whatever NODE_ENV says', () => {
  it.each(['development', 'test'])('%s: the card processor needs its own webhook secret', (nodeEnv) => {
    const text = refusal({ NODE_ENV: nodeEnv, PAYMENT_PROVIDER: 'card_processor', CARD_PROCESSOR_API_KEY: 'sk_test_x' });
    expect(text).toContain(
      'CARD_PROCESSOR_WEBHOOK_SECRET: must be set when PAYMENT_PROVIDER=card_processor (the development secret is public)',
    );
    expect(named(text)).toEqual(['CARD_PROCESSOR_WEBHOOK_SECRET']);
    const pasted = refusal({
      NODE_ENV: nodeEnv,
      PAYMENT_PROVIDER: 'card_processor',
      CARD_PROCESSOR_API_KEY: 'sk_test_x',
      CARD_PROCESSOR_WEBHOOK_SECRET: loadConfig({}).CARD_PROCESSOR_WEBHOOK_SECRET,
    });
    expect(named(pasted)).toEqual(['CARD_PROCESSOR_WEBHOOK_SECRET']);
    const set = { CARD_PROCESSOR_API_KEY: 'sk_test_x', CARD_PROCESSOR_WEBHOOK_SECRET: 'whsec_' + 'z'.repeat(32) };
    expect(loadConfig({ NODE_ENV: nodeEnv, PAYMENT_PROVIDER: 'card_processor', ...set }).PAYMENT_PROVIDER).toBe('card_processor');
  });

  it.each([
    ['EMAIL_PROVIDER', 'smtp', 'SMTP_HOST'],
    ['SMS_PROVIDER', 'http', 'SMS_HTTP_URL'],
    ['IDENTITY_PROVIDER', 'http', 'IDENTITY_HTTP_URL'],
    ['OPERATOR_PROVIDER', 'http', 'OPERATOR_HTTP_ENDPOINTS'],
  ])('development: %s=%s needs %s', (provider, value, needed) => {
    expect(named(refusal({ NODE_ENV: 'development', [provider]: value }))).toEqual([needed]);
  });

  it('an SMTP user needs a password', () => {
    const env = { EMAIL_PROVIDER: 'smtp', SMTP_HOST: '127.0.0.1', SMTP_USER: 'mailer' };
    expect(named(refusal(env))).toEqual(['SMTP_PASSWORD']);
    expect(loadConfig({ ...env, SMTP_PASSWORD: 'x' }).SMTP_USER).toBe('mailer');
  });
});

describe('telemetry settings (issues 22 and 31)', () => {
  it('reads the metrics listener and the OTLP exporter, with defaults that export nothing', () => {
    expect(loadConfig({})).toMatchObject({
      METRICS_ENABLED: true,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: 9464,
      WORKER_METRICS_PORT: 9465,
      METRICS_PATH: '/metrics',
      OTEL_SDK_DISABLED: false,
    });
    expect(loadConfig({}).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318', OTEL_SERVICE_NAME: 'api-eu' })).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318',
      OTEL_SERVICE_NAME: 'api-eu',
    });
  });

  it("refuses OpenTelemetry's variables with a value its SDK would not understand, naming each", () => {
    expect(named(refusal({ OTEL_TRACES_EXPORTER: 'otlp,jaeger' }))).toEqual(['OTEL_TRACES_EXPORTER']);
    expect(named(refusal({ OTEL_TRACES_SAMPLER: 'ratio' }))).toEqual(['OTEL_TRACES_SAMPLER']);
    expect(named(refusal({ OTEL_TRACES_SAMPLER_ARG: '10' }))).toEqual(['OTEL_TRACES_SAMPLER_ARG']);
    expect(named(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' }))).toEqual(['OTEL_EXPORTER_OTLP_PROTOCOL']);
    expect(
      loadConfig({
        OTEL_TRACES_EXPORTER: 'otlp,console',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toMatchObject({
      OTEL_TRACES_SAMPLER_ARG: 0.25,
    });
  });

  it('refuses a metrics listener on the API port and a metrics path that is not a path', () => {
    expect(named(refusal({ PORT: '3000', METRICS_PORT: '3000' }))).toEqual(['METRICS_PORT']);
    expect(named(refusal({ METRICS_PATH: 'metrics' }))).toEqual(['METRICS_PATH']);
    // Off, the port is not read.
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000', METRICS_ENABLED: 'false' })).not.toThrow();
  });

  it('refuses in production a plain-HTTP OTLP endpoint on another host: traces would cross the network in clear text', () => {
    const text = refusal({ ...productionEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel.internal:4318' });
    expect(named(text)).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT']);
    expect(text).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT: http:\/\/ to another host \(otel.internal\) is refused in production/);
    // TLS, or a collector on the same host (a sidecar), is fine.
    expect(() => loadConfig({ ...productionEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.internal:4318' })).not.toThrow();
    expect(() => loadConfig({ ...productionEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).not.toThrow();
    expect(() => loadConfig({ ...productionEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).not.toThrow();
    // The traces endpoint of its own is held to the same rule.
    expect(named(refusal({ ...productionEnv(), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel.internal:4318/v1/traces' }))).toEqual([
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    ]);
    // Development leaves it alone.
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel.internal:4318' })).not.toThrow();
  });
});

// Issue 33: "Remote provider URLs … are accepted as http:// in production: refuse them as is done for OTLP."
describe('provider URLs in production', () => {
  const production = (overrides: Record<string, string>) => ({ ...productionEnv(), ...overrides });

  it.each(['SMS_HTTP_URL', 'IDENTITY_HTTP_URL', 'STORE_HTTP_URL', 'FX_HTTP_URL', 'CARD_PROCESSOR_API_BASE_URL'])(
    'refuses %s as http:// to another host, and takes https://, loopback, or a host PLAINTEXT_HOSTS lists',
    (key) => {
      const text = refusal(production({ [key]: 'http://partner.example.com/api' }));
      expect(named(text)).toEqual([key]);
      expect(text).toMatch(
        new RegExp(
          `${key}: http:// to another host \\(partner.example.com\\) is refused in production: .* would cross the network in clear text`,
        ),
      );
      for (const url of ['https://partner.example.com/api', 'http://127.0.0.1:4010/api', 'http://localhost:4010/api']) {
        expect(() => loadConfig(production({ [key]: url }))).not.toThrow();
      }
      expect(() => loadConfig(production({ [key]: 'http://stub:4010/api', PLAINTEXT_HOSTS: 'postgres,temporal,stub' }))).not.toThrow();
      // Development leaves it alone.
      expect(() => loadConfig({ [key]: 'http://partner.example.com/api' })).not.toThrow();
    },
  );

  it('refuses an operator of OPERATOR_HTTP_ENDPOINTS at http:// to another host, naming the operator', () => {
    const text = refusal(production({ OPERATOR_HTTP_ENDPOINTS: 'stc=https://stc.example.com,mobily:esim=http://mobily.example.com' }));
    expect(named(text)).toEqual(['OPERATOR_HTTP_ENDPOINTS']);
    expect(text).toContain(
      'OPERATOR_HTTP_ENDPOINTS: http:// to another host (mobily.example.com, operator mobily) is refused in production',
    );
    const listed = { OPERATOR_HTTP_ENDPOINTS: 'stc=http://stub:4010/stc,zain=http://127.0.0.1:4011', PLAINTEXT_HOSTS: 'stub' };
    expect(() => loadConfig(production(listed))).not.toThrow();
  });

  it('holds OTLP to the same rule: a collector PLAINTEXT_HOSTS lists may be reached over http://', () => {
    const env = production({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(named(refusal(env))).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT']);
    expect(loadConfig({ ...env, PLAINTEXT_HOSTS: 'collector' }).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://collector:4318');
  });
});

// Issue 22: "TLS settings for Temporal (server CA, client certificate and key, or an API key, and the
// namespace) and for Postgres (sslmode and CA, honoured by both the ORM and the pool), refused in
// production when a remote address has no TLS."
describe('TLS to Postgres and Temporal', () => {
  const production = (overrides: Record<string, string>) => ({ ...productionEnv(), ...overrides });

  it.each([
    'postgres://app:secret@db.internal:5432/activation_sys',
    'postgres://app:secret@db.internal:5432/activation_sys?sslmode=disable',
  ])('refuses a remote Postgres without TLS in production: %s', (url) => {
    const text = refusal(production({ DATABASE_URL: url }));
    expect(named(text)).toEqual(['DATABASE_URL']);
    expect(text).toContain('DATABASE_URL: db.internal is not a loopback address and the connection has no TLS');
    // The password is never printed.
    expect(text).not.toContain('secret');
  });

  // Issue 33: only a mode that checks who answers is accepted for a remote Postgres.
  const remote = (mode: string) => `postgres://app:secret@db.internal:5432/activation_sys?sslmode=${mode}`;

  it('accepts a remote Postgres with sslmode=verify-full (the system CAs or a CA file), or verify-ca with a CA file', () => {
    expect(loadConfig(production({ DATABASE_URL: remote('verify-full') })).DATABASE_URL).toContain('sslmode=verify-full');
    const ca = { DATABASE_SSL_CA_FILE: '/etc/ssl/db-ca.pem' };
    expect(loadConfig(production({ DATABASE_URL: remote('verify-full'), ...ca })).DATABASE_SSL_CA_FILE).toBe(ca.DATABASE_SSL_CA_FILE);
    expect(loadConfig(production({ DATABASE_URL: remote('verify-ca'), ...ca })).DATABASE_URL).toContain('sslmode=verify-ca');
  });

  it('refuses sslmode=require for a remote Postgres in production, with a CA file or without: it must say verify-ca or verify-full', () => {
    const text = refusal(production({ DATABASE_URL: remote('require') }));
    expect(named(text)).toEqual(['DATABASE_URL']);
    expect(text).toContain('DATABASE_URL: sslmode=require does not check the certificate');
    expect(text).not.toContain('secret');
    // With a CA file libpq checks the chain, but only while the file is set: the mode must say so itself.
    const withCa = refusal(production({ DATABASE_URL: remote('require'), DATABASE_SSL_CA_FILE: '/etc/ssl/db-ca.pem' }));
    expect(named(withCa)).toEqual(['DATABASE_URL']);
    expect(withCa).toContain('DATABASE_URL: sslmode=require checks the certificate only while DATABASE_SSL_CA_FILE is set');
  });

  it('refuses sslmode=verify-ca without DATABASE_SSL_CA_FILE for a remote Postgres in production: any public certificate would do', () => {
    const text = refusal(production({ DATABASE_URL: remote('verify-ca') }));
    expect(named(text)).toEqual(['DATABASE_URL']);
    expect(text).toContain('DATABASE_URL: sslmode=verify-ca without DATABASE_SSL_CA_FILE');
  });

  it.each(['prefer', 'allow'])('refuses sslmode=%s in production (it would fall back to plaintext)', (mode) => {
    const text = refusal(production({ DATABASE_URL: remote(mode) }));
    expect(named(text)).toEqual(['DATABASE_URL']);
    expect(text).toContain(`sslmode=${mode} is not supported`);
  });

  it('lets loopback and PLAINTEXT_HOSTS hosts use any mode, as they may use none', () => {
    for (const mode of ['require', 'verify-ca']) {
      expect(() => loadConfig(production({ DATABASE_URL: `postgres://app:secret@127.0.0.1:5432/x?sslmode=${mode}` }))).not.toThrow();
      const env = production({ DATABASE_URL: `postgres://app:secret@postgres:5432/x?sslmode=${mode}`, PLAINTEXT_HOSTS: 'postgres' });
      expect(() => loadConfig(env)).not.toThrow();
    }
  });

  it('leaves development alone: sslmode=require and verify-ca without a CA file load', () => {
    for (const mode of ['require', 'verify-ca']) expect(loadConfig({ DATABASE_URL: remote(mode) }).DATABASE_URL).toContain(mode);
  });

  it.each([
    'postgres://app:secret@127.0.0.1:5432/activation_sys',
    'postgres://app:secret@localhost:5432/activation_sys',
    'postgres://app:secret@[::1]:5432/activation_sys',
  ])('accepts a loopback Postgres without TLS: %s', (url) => {
    expect(loadConfig(production({ DATABASE_URL: url })).NODE_ENV).toBe('production');
  });

  it('refuses a remote Temporal without TLS in production, and accepts it with TLS, a CA, a client certificate or an API key', () => {
    const text = refusal(production({ TEMPORAL_ADDRESS: 'temporal.internal:7233' }));
    expect(named(text)).toEqual(['TEMPORAL_ADDRESS']);
    expect(text).toContain('TEMPORAL_ADDRESS: temporal.internal is not a loopback address and the connection has no TLS');
    const settings: Array<Record<string, string>> = [
      { TEMPORAL_TLS: 'true' },
      { TEMPORAL_TLS_CA_FILE: '/etc/temporal/ca.pem' },
      { TEMPORAL_TLS_CERT_FILE: '/etc/temporal/client.pem', TEMPORAL_TLS_KEY_FILE: '/etc/temporal/client.key' },
      { TEMPORAL_API_KEY: 'cloud-api-key' },
    ];
    for (const tls of settings) {
      expect(loadConfig(production({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', ...tls })).TEMPORAL_ADDRESS).toBe(
        'ns.acct.tmprl.cloud:7233',
      );
    }
  });

  it('lets PLAINTEXT_HOSTS name the hosts of a private network (docker compose: postgres, temporal)', () => {
    const env = production({
      DATABASE_URL: 'postgres://app:secret@postgres:5432/activation_sys',
      TEMPORAL_ADDRESS: 'temporal:7233',
    });
    expect(named(refusal(env)).sort()).toEqual(['DATABASE_URL', 'TEMPORAL_ADDRESS']);
    expect(loadConfig({ ...env, PLAINTEXT_HOSTS: 'postgres, temporal' }).PLAINTEXT_HOSTS).toEqual(['postgres', 'temporal']);
  });

  it('leaves development alone: a remote address without TLS loads', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app:secret@db.internal:5432/x', TEMPORAL_ADDRESS: 'temporal.internal:7233' });
    expect(config.TEMPORAL_ADDRESS).toBe('temporal.internal:7233');
  });

  // Nothing in the URL is silently dropped any more: what we do not honour stops start-up, whatever NODE_ENV says.
  it.each([
    ['sslmode=prefer', 'sslmode=prefer is not supported'],
    ['sslmode=allow', 'sslmode=allow is not supported'],
    ['sslmode=bogus', 'sslmode=bogus is not supported'],
    ['sslrootcert=/etc/ca.pem', 'sslrootcert is not read from the URL: use DATABASE_SSL_CA_FILE'],
    ['sslcert=/etc/c.pem&sslkey=/etc/c.key', 'sslcert is not read from the URL'],
  ])('refuses %s in DATABASE_URL, in any environment', (query, message) => {
    const text = refusal({ NODE_ENV: 'development', DATABASE_URL: `postgres://app:secret@db.internal:5432/x?${query}` });
    expect(named(text)).toEqual(['DATABASE_URL']);
    expect(text).toContain(message);
  });

  it('refuses a CA file without a TLS sslmode (it would be ignored)', () => {
    const text = refusal({ DATABASE_URL: 'postgres://app:secret@127.0.0.1:5432/x', DATABASE_SSL_CA_FILE: '/etc/ca.pem' });
    expect(named(text)).toEqual(['DATABASE_SSL_CA_FILE']);
    expect(text).toContain('DATABASE_SSL_CA_FILE: needs sslmode=require, verify-ca or verify-full in DATABASE_URL');
  });

  it('refuses a client certificate without its key, and the reverse', () => {
    expect(named(refusal({ TEMPORAL_TLS_CERT_FILE: '/etc/c.pem' }))).toEqual(['TEMPORAL_TLS_KEY_FILE']);
    expect(named(refusal({ TEMPORAL_TLS_KEY_FILE: '/etc/c.key' }))).toEqual(['TEMPORAL_TLS_CERT_FILE']);
  });

  it('refuses TEMPORAL_TLS=false next to settings that need TLS', () => {
    const text = refusal({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' });
    expect(named(text)).toEqual(['TEMPORAL_TLS']);
    expect(text).toContain('TEMPORAL_TLS: is false, but TEMPORAL_API_KEY needs TLS');
  });
});
