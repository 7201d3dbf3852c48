/**
 * Typed errors of encrypted values and values from the cluster. Each has a stable code that
 * `baton validate`, previews and the agent's refusals show, and the YAML path it is about, so the
 * problem can be located in the user's file. Messages never contain a decrypted value or a key.
 */
import { BatonError } from '../errors.js';

export type SecretsErrorCode =
  /** No age key given at all, or none of the keys given is a recipient of the file. */
  | 'SOPS_NO_KEY'
  /** The file's MAC does not match its content: it was edited without sops, or tampered with. */
  | 'SOPS_MAC_MISMATCH'
  /** A value (or the data key) does not decrypt: tampered, truncated or encrypted with another data key. */
  | 'SOPS_DECRYPT_FAILED'
  /** The `sops` metadata or an `ENC[...]` value is malformed. */
  | 'SOPS_INVALID'
  /** A SOPS feature Baton does not implement (Shamir key groups, comment-based rules, non-age master keys only). */
  | 'SOPS_UNSUPPORTED'
  /** An age key (file, environment variable or Secret) could not be read or parsed. */
  | 'AGE_KEY_INVALID'
  /** A `valuesFrom` Secret or ConfigMap (or its key) does not exist. */
  | 'VALUES_FROM_MISSING'
  /** A `valuesFrom` entry's content is not what it must be (not a YAML map, not UTF-8...). */
  | 'VALUES_FROM_INVALID'
  /** The cluster could not be asked for a `valuesFrom` object (transient: retried). */
  | 'VALUES_FROM_UNREACHABLE'
  /** A `valuesFiles` entry is missing, outside the repository or not a map of values. */
  | 'VALUES_FILE_INVALID';

export class SecretsError extends BatonError {
  declare readonly code: SecretsErrorCode;
  /** Where in the file the problem is (YAML path), when it is about one place. */
  readonly path: (string | number)[];

  constructor(code: SecretsErrorCode, message: string, path: (string | number)[] = [], context: Record<string, unknown> = {}) {
    super(code, message, { ...context, path });
    this.path = path;
  }
}
