/**
 * Production start-up of the compiled processes (`npx tsc -p tsconfig.json` first): the API
 * and the worker, given NODE_ENV=production and a development stand-in or default, exit
 * non-zero with a message naming the setting, before opening a database or Temporal.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { productionEnv } from '../helpers/production-env';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

const PROCESSES = [
  ['API', 'dist/src/main.js'],
  ['worker', 'dist/worker/main.js'],
];

/** Runs a compiled entry point with exactly `env` (plus PATH), and reports how it ended. */
function run(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, script)], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A process that accepted the configuration would go on to connect: stop it and say so.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.each(PROCESSES)('%s start-up in production', (_name, script) => {
  it.each([
    ['PAYMENT_PROVIDER', 'mock', 'PAYMENT_PROVIDER: mock is refused in production'],
    ['IDENTITY_PROVIDER', 'mock', 'IDENTITY_PROVIDER: mock is refused in production'],
    ['EMAIL_PROVIDER', 'file', 'EMAIL_PROVIDER: file is refused in production'],
    ['JWT_SECRET', '', 'JWT_SECRET: must be set in production'],
    ['TEMPORAL_PAYLOAD_KEYS', '', 'TEMPORAL_PAYLOAD_KEYS: must be set in production'],
  ])('refuses %s=%j, naming it, and exits non-zero', async (key, value, message) => {
    const { code, output } = await run(script, { ...productionEnv(), [key]: value });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration:');
    expect(output).toContain(message);
    // Only the refused setting is named: the rest of the production configuration is complete.
    expect(output.match(/^ {2}[A-Z][A-Z0-9_]*: /gm)).toHaveLength(1);
  });

  it('names every problem at once when nothing is configured', async () => {
    const { code, output } = await run(script, { NODE_ENV: 'production' });
    expect(code).toBe(1);
    for (const key of ['PAYMENT_PROVIDER', 'SMS_PROVIDER', 'OPERATOR_PROVIDER', 'JWT_SECRET', 'DATA_ENCRYPTION_KEY', 'DATABASE_URL']) {
      expect(output).toContain(`  ${key}: `);
    }
  });
});
