/**
 * docker-compose.yml, validated by Debian's `docker-compose config` (no Docker engine needed;
 * scripts/setup.sh installs it): the API and the worker run in production mode, every secret,
 * key and provider setting comes from .env (none is written in the file), a missing one is
 * named, and the resulting environment is a production configuration start-up accepts.
 * .dockerignore keeps .env out of the build context.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { productionEnv } from '../helpers/production-env';

const ROOT = path.resolve(__dirname, '..', '..');

/** Every variable docker-compose.yml requires from .env (`${VAR:?…}`). */
const REQUIRED = [
  'POSTGRES_PASSWORD',
  'PUBLIC_BASE_URL',
  'JWT_SECRET',
  'DATA_ENCRYPTION_KEY',
  'DATA_HASH_KEY',
  'TEMPORAL_PAYLOAD_KEYS',
  'PAYMENT_PROVIDER',
  'CARD_PROCESSOR_API_KEY',
  'CARD_PROCESSOR_WEBHOOK_SECRET',
  'ESIM_PROVIDER_PUBLIC_KEY',
  'ESIM_PROVIDER_MERCHANT_ID',
  'EMAIL_PROVIDER',
  'SMTP_HOST',
  'SMTP_FROM',
  'SMS_PROVIDER',
  'SMS_HTTP_URL',
  'IDENTITY_PROVIDER',
  'IDENTITY_HTTP_URL',
  'OPERATOR_PROVIDER',
  'OPERATOR_HTTP_ENDPOINTS',
];

/** A sample .env: a production configuration whose secrets are recognisable placeholders. */
function sampleEnv(): Record<string, string> {
  const env = productionEnv();
  return {
    ...Object.fromEntries(REQUIRED.map((key) => [key, env[key]])),
    POSTGRES_PASSWORD: 'placeholderPostgresPassword0123',
    JWT_SECRET: 'placeholder-jwt-secret-from-dotenv-0123456789',
    DATA_HASH_KEY: 'placeholder-hash-key-from-dotenv-0123456789',
    DATA_ENCRYPTION_KEY: Buffer.from('placeholder-data-key-32-bytes-ok').toString('base64'),
    TEMPORAL_PAYLOAD_KEYS: `placeholder:${Buffer.from('placeholder-payload-key-32-bytes!').toString('base64')}`,
    CARD_PROCESSOR_API_KEY: 'sk_live_placeholder_api_key_from_dotenv',
    CARD_PROCESSOR_WEBHOOK_SECRET: 'whsec_placeholder_webhook_secret_from_dotenv',
    // One line in .env: the configuration turns the \n escapes into newlines.
    ESIM_PROVIDER_PUBLIC_KEY: env.ESIM_PROVIDER_PUBLIC_KEY.trim().replace(/\n/g, '\\n'),
    // Optional credentials and tunables pass through env_file; NODE_ENV is overridden.
    SMTP_USER: 'placeholder-smtp-user',
    SMTP_PASSWORD: 'placeholder-smtp-password',
    SMS_HTTP_TOKEN: 'placeholder-sms-token',
    RATE_LIMIT_MAX: '250',
    NODE_ENV: 'development',
  };
}

function dotenv(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');
}

let dirs: string[] = [];

/** A project directory holding a copy of docker-compose.yml and, when given, a .env. */
function project(env?: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'));
  dirs.push(dir);
  copyFileSync(path.join(ROOT, 'docker-compose.yml'), path.join(dir, 'docker-compose.yml'));
  if (env) writeFileSync(path.join(dir, '.env'), dotenv(env));
  return dir;
}

/** `docker-compose config` in `dir`, with no variables from this process's environment. */
function composeConfig(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker-compose', ['config'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Service {
  environment?: Record<string, string>;
  command?: string[];
}

beforeAll(() => {
  const probe = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      "docker-compose is not installed: run scripts/setup.sh (it installs Debian's docker-compose with apt-get), " +
        `or apt-get install docker-compose. (${probe.error?.message ?? probe.stderr})`,
    );
  }
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

describe('docker-compose.yml with a complete .env', () => {
  const sample = sampleEnv();
  let services: Record<string, Service>;
  beforeAll(async () => {
    const result = await composeConfig(project(sample));
    expect(result).toMatchObject({ code: 0 });
    services = (parse(result.stdout) as { services: Record<string, Service> }).services;
  });

  it('runs the API and the worker in production mode, whatever .env says', () => {
    expect(services.api.environment?.NODE_ENV).toBe('production');
    expect(services.worker.environment?.NODE_ENV).toBe('production');
    expect(services.worker.command).toEqual(['node', 'dist/worker/main.js']);
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENV NODE_ENV=production$/m);
  });

  it.each(['api', 'worker'])('%s takes every secret, key and provider setting from .env', (name) => {
    const environment = services[name].environment ?? {};
    for (const key of REQUIRED.filter((k) => k !== 'POSTGRES_PASSWORD')) expect([key, environment[key]]).toEqual([key, sample[key]]);
    expect(environment.DATABASE_URL).toBe(`postgres://postgres:${sample.POSTGRES_PASSWORD}@postgres:5432/activation_sys`);
    // Optional credentials and tunables arrive through env_file.
    expect(environment).toMatchObject({
      SMTP_PASSWORD: sample.SMTP_PASSWORD,
      SMS_HTTP_TOKEN: sample.SMS_HTTP_TOKEN,
      RATE_LIMIT_MAX: '250',
    });
  });

  it('gives the database the password from .env', () => {
    expect(services.postgres.environment?.POSTGRES_PASSWORD).toBe(sample.POSTGRES_PASSWORD);
  });

  it.each(['api', 'worker'])('gives %s a production configuration that start-up accepts', (name) => {
    const config = loadConfig(services[name].environment);
    expect(config).toMatchObject({ NODE_ENV: 'production', PAYMENT_PROVIDER: 'card_processor', IDENTITY_PROVIDER: 'http' });
    expect(config.ESIM_PROVIDER_PUBLIC_KEY).toContain('\n');
    if (name === 'api') expect(config).toMatchObject({ HOST: '0.0.0.0', PORT: 3000, TRUST_PROXY: false });
  });
});

describe('docker-compose.yml itself', () => {
  const source = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const file = parse(source, { merge: true }) as { services: Record<string, Service> };
  /** Set in the file itself rather than taken from .env: none of them is a secret. */
  const LITERAL = [
    'NODE_ENV',
    'TEMPORAL_ADDRESS',
    'PLAINTEXT_HOSTS',
    'HOST',
    'PORT',
    'TRUST_PROXY',
    'POSTGRES_USER',
    'POSTGRES_DB',
    'DATABASE_URL',
  ];

  it('writes no secret: every other variable is a required ${VAR} from .env', () => {
    for (const [name, service] of Object.entries(file.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (LITERAL.includes(key)) continue;
        expect([name, key, value]).toEqual([name, key, `\${${key}:?set ${key} in .env}`]);
      }
    }
    // The database URL holds the password only by reference.
    const url = file.services.api.environment?.DATABASE_URL;
    expect(url).toBe('postgres://postgres:${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}@postgres:5432/activation_sys');
    expect(file.services.worker.environment?.DATABASE_URL).toBe(url);
    expect(file.services.api.environment?.NODE_ENV).toBe('production');
  });

  it('requires exactly the variables this test lists', () => {
    const required = [...new Set([...source.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((m) => m[1]))];
    expect(required.sort()).toEqual([...REQUIRED].sort());
  });
});

describe('docker-compose.yml without .env', () => {
  it('fails, naming the missing variable', async () => {
    const result = await composeConfig(project());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/set [A-Z_]+ in \.env/);
  });

  // Every required variable is written `${VAR:?set VAR in .env}` (checked above); these runs show
  // compose naming the one missing, from the database's, the shared and the last block.
  it.each(['POSTGRES_PASSWORD', 'JWT_SECRET', 'OPERATOR_HTTP_ENDPOINTS'])(
    'names %s when it alone is missing, printing no secret',
    async (key) => {
      const sample = sampleEnv();
      const rest = { ...sample };
      delete rest[key];
      const result = await composeConfig(project(rest));
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`set ${key} in .env`);
      for (const secret of [sample.JWT_SECRET, sample.CARD_PROCESSOR_WEBHOOK_SECRET, sample.POSTGRES_PASSWORD])
        expect(result.stderr).not.toContain(secret);
    },
  );
});

describe('.dockerignore', () => {
  it('leaves .env, local data, dependencies, build output and git history out of the image', () => {
    const lines = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const entry of ['.env', '.env.*', '.data', 'node_modules', 'dist', '.git']) expect(lines).toContain(entry);
    // Nothing puts .env back (only the example, which holds no secret, may be re-included).
    expect(lines.filter((line) => line.startsWith('!'))).toEqual(['!.env.example']);
  });
});
