import { ConfigError, loadConfig } from '../../src/config';
import { productionEnv } from '../helpers/production-env';

// The fault-injection hook (the API kills itself between an activation's commit and its workflow start) is
// for tests only: production refuses it whatever its value, and an unknown value stops any start.
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration loaded');
}

it('is off unless set, and a test may switch it on', () => {
  expect(loadConfig({ NODE_ENV: 'test' }).FAULT_INJECTION).toBeUndefined();
  expect(loadConfig({ NODE_ENV: 'test', FAULT_INJECTION: 'crash-after-activation-commit' }).FAULT_INJECTION).toBe(
    'crash-after-activation-commit',
  );
});

it('is refused in production', () => {
  expect(loadConfig(productionEnv()).FAULT_INJECTION).toBeUndefined();
  expect(refusal({ ...productionEnv(), FAULT_INJECTION: 'crash-after-activation-commit' })).toMatch(
    /^ {2}FAULT_INJECTION: is refused in production: it makes the process crash on purpose$/m,
  );
});

it('refuses an unknown fault', () => {
  expect(refusal({ NODE_ENV: 'test', FAULT_INJECTION: 'crash-everywhere' })).toMatch(/^ {2}FAULT_INJECTION: /m);
});

it('has start relay defaults of a few seconds', () => {
  expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject({ START_RELAY_POLL_SECONDS: 5, START_RELAY_MAX_BACKOFF_SECONDS: 10 });
});

it('has a signal relay that retries every second at most while Temporal refuses (issue 32: runs hear within a second of its return)', () => {
  expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject({ SIGNAL_RELAY_POLL_SECONDS: 5, SIGNAL_RELAY_MAX_BACKOFF_SECONDS: 1 });
});

it('bounds the session cache (issue 32): at most 60 s of a session served from memory', () => {
  expect(loadConfig({ NODE_ENV: 'test', SESSION_CACHE_SECONDS: '60' }).SESSION_CACHE_SECONDS).toBe(60);
  expect(refusal({ NODE_ENV: 'test', SESSION_CACHE_SECONDS: '3600' })).toMatch(/^ {2}SESSION_CACHE_SECONDS: /m);
});
