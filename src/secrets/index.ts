/**
 * Encrypted values and values from the cluster: SOPS files decrypted with age keys (MAC checked),
 * age keys from files, the environment or a Secret, and `valuesFrom` Secrets and ConfigMaps. The one
 * entry point the loaders call is `resolveInstanceValues`; the agent also uses `clusterValuesVersion`
 * to notice a changed Secret, and commands load keys with `loadAgeKeys`/`loadLocalAgeKeys`.
 */
export { AgeKeyring } from './age-keyring.js';
export { SecretsError, type SecretsErrorCode } from './errors.js';
export { decryptSops, lockedSops, type DecryptedSops, type LockedSops } from './sops.js';
export { isSopsDocument } from './sops-file.js';
export { defaultKeyFile, loadAgeKeys, loadLocalAgeKeys, loadSecretAgeKeys, parseSecretRef, type AgeKeySources } from './key-sources.js';
export { clusterValuesVersion, readClusterValues, type ClusterValues, type ValuesFromRef } from './values-from.js';
export { hasExternalValues, isSopsText, resolveInstanceValues, type InstanceValues, type InstanceValuesInput, type ValuesContext } from './instance-values.js';
export { resolveInstanceParams, type InstanceParams } from './resolve-params.js';
