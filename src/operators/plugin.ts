import type { SimType } from '../entities';

/** A definite "no" from the operator: the request is wrong, retrying cannot help. */
export class OperatorRejection extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OperatorRejection';
  }
}

/** The operator did not answer in time (retryable; OPERATOR_TIMEOUT at the API). */
export class OperatorTimeout extends Error {
  constructor(message = 'operator timed out') {
    super(message);
    this.name = 'OperatorTimeout';
  }
}

/** The operator failed (retryable; OPERATOR_UNAVAILABLE at the API). */
export class OperatorUnavailable extends Error {
  constructor(message = 'operator unavailable') {
    super(message);
    this.name = 'OperatorUnavailable';
  }
}

export type SerialCheck = { valid: true } | { valid: false; reason: string };

export interface IssuedEsim {
  /** The operator's refreshed activation code (LPA). */
  activationCode: string;
  /** Operator-assigned profile ICCID, when provided. */
  iccid?: string;
}

/**
 * What activation-sys needs from a telecom operator. Implementations throw
 * OperatorRejection for definite refusals, OperatorTimeout / OperatorUnavailable
 * for transient failures. `idempotencyKey` is the activation id: the same call
 * twice changes nothing twice.
 */
export interface OperatorPlugin {
  readonly slug: string;
  readonly supportsEsim: boolean;
  validateSerial(serial: string, simType: SimType): Promise<SerialCheck>;
  activateSim(input: { iccid: string; idempotencyKey: string }): Promise<void>;
  issueEsim(input: { activationCode: string; idempotencyKey: string }): Promise<IssuedEsim>;
}

/** Operator plugins keyed by slug. */
export class OperatorRegistry {
  private readonly plugins = new Map<string, OperatorPlugin>();

  constructor(plugins: OperatorPlugin[] = []) {
    for (const plugin of plugins) this.register(plugin);
  }

  register(plugin: OperatorPlugin): void {
    this.plugins.set(plugin.slug, plugin);
  }

  get(slug: string): OperatorPlugin | undefined {
    return this.plugins.get(slug);
  }

  supportsEsim(slug: string): boolean {
    return this.plugins.get(slug)?.supportsEsim ?? false;
  }
}
