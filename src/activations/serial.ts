import type { Config } from '../config';
import type { SimType } from '../entities';
import { AppError, validationError } from '../http/errors';
import { parseActivationCode } from '../operators/esim-code';
import {
  OperatorRejection,
  OperatorTimeout,
  OperatorUnavailable,
  type OperatorPlugin,
  type OperatorRegistry,
  type SerialCheck,
} from '../operators/plugin';
import { PHYSICAL_ICCID } from './schemas';

/**
 * Checks shared by validate-iccid and create, in the spec's order: the eSIM
 * gate, the format rule of the SIM type, the operator's eSIM support.
 */
export function checkSerialFormat(config: Pick<Config, 'FEATURE_ESIM'>, serial: string, simType: SimType): void {
  if (simType === 'esim' && !config.FEATURE_ESIM) throw new AppError('ACTIVATION_ESIM_DISABLED');
  const ok = simType === 'physical' ? PHYSICAL_ICCID.test(serial) : parseActivationCode(serial) !== null;
  if (!ok) {
    throw validationError([
      {
        path: 'iccid',
        message:
          simType === 'physical'
            ? 'ICCID must be exactly 19 digits'
            : 'Not a GSMA SGP.22 activation code (LPA:1$<SM-DP+ address>$<matching id>…, at most 255 characters)',
      },
    ]);
  }
}

export function pluginFor(operators: OperatorRegistry, slug: string, simType: SimType): OperatorPlugin {
  const plugin = operators.get(slug);
  if (!plugin) throw new AppError('OPERATOR_NOT_FOUND');
  if (simType === 'esim' && !plugin.supportsEsim) throw new AppError('ACTIVATION_ESIM_UNSUPPORTED_OPERATOR');
  return plugin;
}

/** Asks the operator; transient failures map to 502/504, a refusal to `{ valid: false }`. */
export async function askOperator(plugin: OperatorPlugin, serial: string, simType: SimType): Promise<SerialCheck> {
  try {
    return await plugin.validateSerial(serial, simType);
  } catch (err) {
    // Plugins may say "no" by answering `{ valid: false }` or by throwing a rejection: the same refusal.
    if (err instanceof OperatorRejection) return { valid: false, reason: err.reason };
    if (err instanceof OperatorTimeout) throw new AppError('OPERATOR_TIMEOUT');
    if (err instanceof OperatorUnavailable) throw new AppError('OPERATOR_UNAVAILABLE');
    throw err;
  }
}
