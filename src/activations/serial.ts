import type { Config } from '../config';
import type { SimType } from '../entities';
import { AppError } from '../http/errors';
import {
  OperatorRejection,
  OperatorTimeout,
  OperatorUnavailable,
  type OperatorPlugin,
  type OperatorRegistry,
  type SerialCheck,
} from '../operators/plugin';

/** The eSIM gate, checked by validate-iccid and create after the format rule (the route's schema). */
export function checkEsimGate(config: Pick<Config, 'FEATURE_ESIM'>, simType: SimType): void {
  if (simType === 'esim' && !config.FEATURE_ESIM) throw new AppError('ACTIVATION_ESIM_DISABLED');
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
