import { BatonError } from '../errors.js';

/** A shard member could not join or keep its membership (a setting, a refused config, its lease lost). */
export class ShardError extends BatonError {
  constructor(code: 'SHARD_SETTING_INVALID' | 'SHARD_CONFIG_MISMATCH' | 'SHARD_LEASE_LOST', message: string, context: Record<string, unknown> = {}) {
    super(code, message, context);
  }
}
