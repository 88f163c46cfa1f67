import type { SimType } from '../entities';
import { parseActivationCode } from './esim-code';
import { OperatorRejection, OperatorTimeout, OperatorUnavailable, type IssuedEsim, type OperatorPlugin, type SerialCheck } from './plugin';

/**
 * The deterministic mock operator. Outcomes are chosen by the serial, so tests
 * and people can reach every branch (docs/demo.md lists them):
 *
 * Physical ICCIDs: valid when 19 digits, starting `89`, passing Luhn. Then, by
 * the digits before the check digit:
 *   ...`9001` x  validation times out          (OPERATOR_TIMEOUT)
 *   ...`9002` x  validation fails              (OPERATOR_UNAVAILABLE)
 *   ...`9003` x  handoff fails once, then succeeds (retried)
 *   ...`9004` x  handoff is rejected           (activation `failed`)
 *   ...`9005` x  handoff always times out      (retried until it recovers)
 *   ...`9006` x  validation refuses the SIM    (reported lost or stolen)
 * eSIM codes: any valid SGP.22 code; a matching id starting `REJECT` is
 * rejected at issuance, `FAILONCE` fails once then succeeds, `TIMEOUT` at
 * validation times out, `BLOCKED` is refused at validation. Issued profiles get ICCID `8997` + digits and a
 * refreshed matching id. `handoffDelayMs` (MOCK_OPERATOR_DELAY_MS) makes every handoff
 * take that long, like a real operator; the fault test kills a worker during it.
 */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Appends the Luhn check digit to 18 digits. */
export function withLuhnDigit(payload: string): string {
  for (let d = 0; d <= 9; d += 1) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

const behaviour = (iccid: string) => iccid.slice(14, 18);

/** The mock's verdict on a serial; throws what the operator contract raises (timeout, unavailable, refusal). */
function checkSerial(serial: string, simType: SimType): SerialCheck {
  if (simType === 'esim') {
    const code = parseActivationCode(serial);
    if (!code) return { valid: false, reason: 'Activation code rejected by the operator' };
    if (code.matchingId.startsWith('TIMEOUT')) throw new OperatorTimeout();
    if (code.matchingId.startsWith('BLOCKED')) throw new OperatorRejection('Profile is installed on another device');
    return { valid: true };
  }
  if (!/^89\d{17}$/.test(serial) || !luhnValid(serial)) return { valid: false, reason: 'ICCID rejected by the operator' };
  if (behaviour(serial) === '9001') throw new OperatorTimeout();
  if (behaviour(serial) === '9002') throw new OperatorUnavailable();
  if (behaviour(serial) === '9006') throw new OperatorRejection('SIM reported lost or stolen');
  return { valid: true };
}

export interface MockOperatorOptions {
  slug?: string;
  supportsEsim?: boolean;
  handoffDelayMs?: number;
}

export function createMockOperator(opts: MockOperatorOptions = {}): OperatorPlugin {
  const failedOnce = new Set<string>();
  const handoffDelay = () => new Promise((resolve) => setTimeout(resolve, opts.handoffDelayMs ?? 0));

  function failOnce(key: string): void {
    if (failedOnce.has(key)) return;
    failedOnce.add(key);
    throw new OperatorUnavailable('mock operator: transient failure (fails once)');
  }

  return {
    slug: opts.slug ?? 'mock',
    supportsEsim: opts.supportsEsim ?? true,

    // The executor turns a throw into a rejection, as the operator contract (an async call) has it.
    validateSerial: (serial: string, simType: SimType) => new Promise<SerialCheck>((resolve) => resolve(checkSerial(serial, simType))),

    async activateSim({ iccid }) {
      await handoffDelay();
      const b = behaviour(iccid);
      if (b === '9003') failOnce(iccid);
      if (b === '9004') throw new OperatorRejection('SIM blocked by the operator');
      if (b === '9005') throw new OperatorTimeout();
    },

    async issueEsim({ activationCode, idempotencyKey }): Promise<IssuedEsim> {
      await handoffDelay();
      const code = parseActivationCode(activationCode);
      if (!code) throw new OperatorRejection('Activation code rejected by the operator');
      if (code.matchingId.startsWith('REJECT')) throw new OperatorRejection('eSIM profile unavailable');
      if (code.matchingId.startsWith('FAILONCE')) failOnce(idempotencyKey);
      const digits = idempotencyKey.replace(/\D/g, '').padEnd(14, '0').slice(0, 14);
      return {
        activationCode: `LPA:1$${code.smdpAddress}$${code.matchingId}-${idempotencyKey.slice(0, 8).toUpperCase()}`,
        iccid: withLuhnDigit(`8997${digits}`),
      };
    },
  };
}

/** The registry the app and the worker use by default: `mock` (eSIM) and `mock-noesim`. */
export function mockOperators(opts: { handoffDelayMs?: number } = {}): OperatorPlugin[] {
  return [
    createMockOperator({ ...opts, slug: 'mock', supportsEsim: true }),
    createMockOperator({ ...opts, slug: 'mock-noesim', supportsEsim: false }),
  ];
}
