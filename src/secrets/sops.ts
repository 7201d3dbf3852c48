/**
 * Decrypting a SOPS document with age keys: unwrap the data key, decrypt every value the file's rules
 * say is encrypted (each bound to its path), recompute the MAC over all values in document order and
 * compare it with the file's MAC (decrypted with the data key, bound to `lastmodified`). Anything that
 * does not match refuses the whole file: a partly trusted file is never used.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AgeKeyring } from './age-keyring.js';
import { SecretsError } from './errors.js';
import { readSopsFile, type SopsFile, type SopsLeaf, type YamlPath } from './sops-file.js';
import { additionalData, decryptValue, macBytes, type SopsValueType } from './sops-values.js';

/** sha256("sops"): the MAC's first bytes when `mac_only_encrypted` is set (sops.go). */
const MAC_ONLY_ENCRYPTED_INIT = Buffer.from('8a3fd2ad54ce66527b1034f3d147be0b0b975b3bf44f72c6fdadec8176f27d69', 'hex');

export interface DecryptedSops {
  /** The document without `sops`, every value in clear. */
  value: Record<string, unknown>;
  /** The paths of the values that were encrypted. */
  encryptedPaths: YamlPath[];
  /** Text forms of the decrypted values, for masking (booleans are left out: they would mask every "true"). */
  secrets: string[];
}

export interface LockedSops {
  /** The document without `sops`; encrypted values are `undefined`. */
  value: Record<string, unknown>;
  encrypted: { path: YamlPath; type: SopsValueType | 'unknown' }[];
  recipients: string[];
}

export async function decryptSops(text: string, keyring: AgeKeyring): Promise<DecryptedSops> {
  const file = readSopsFile(text);
  const dataKey = await keyring.unwrap(file.ageStanzas);
  const plain = new Map<SopsLeaf, unknown>();
  const hash = createHash('sha512');
  if (file.metadata.mac_only_encrypted === true) hash.update(MAC_ONLY_ENCRYPTED_INIT);
  for (const leaf of file.leaves) {
    const value = leaf.encrypted ? decryptLeaf(leaf, dataKey) : leaf.stored;
    plain.set(leaf, value);
    if (leaf.encrypted || file.metadata.mac_only_encrypted !== true) hash.update(macBytes(value));
  }
  checkMac(file, dataKey, hash.digest('hex').toUpperCase());
  const encrypted = file.leaves.filter((l) => l.encrypted);
  return {
    value: file.build((leaf) => plain.get(leaf)),
    encryptedPaths: encrypted.map((l) => l.path),
    secrets: [...new Set(encrypted.map((l) => plain.get(l)).filter((v) => typeof v === 'string' || typeof v === 'number').map(String))].filter((s) => s !== ''),
  };
}

/** What can be known of a SOPS document without a key: its structure, which values are encrypted and for whom. */
export function lockedSops(text: string): LockedSops {
  const file = readSopsFile(text);
  return {
    value: file.build((leaf) => (leaf.encrypted ? undefined : leaf.stored)),
    encrypted: file.leaves.filter((l) => l.encrypted).map((l) => ({ path: l.path, type: typeOf(l.stored) })),
    recipients: file.ageStanzas.map((s) => s.recipient),
  };
}

function typeOf(stored: unknown): SopsValueType | 'unknown' {
  const m = typeof stored === 'string' ? /,type:([a-z]+)\]$/.exec(stored) : null;
  return (m?.[1] as SopsValueType | undefined) ?? 'unknown';
}

function decryptLeaf(leaf: SopsLeaf, dataKey: Uint8Array): unknown {
  if (typeof leaf.stored !== 'string') {
    throw new SecretsError('SOPS_MAC_MISMATCH', `${leaf.path.join('.')} should be encrypted but holds a plain value: the file was edited without sops`, leaf.path);
  }
  if (leaf.stored !== '' && !leaf.stored.startsWith('ENC[')) {
    throw new SecretsError('SOPS_MAC_MISMATCH', `${leaf.path.join('.')} should be encrypted but holds a plain value: the file was edited without sops`, leaf.path);
  }
  return decryptValue(leaf.stored, dataKey, additionalData(leaf.keys), leaf.path);
}

function checkMac(file: SopsFile, dataKey: Uint8Array, computed: string): void {
  if (file.metadata.mac === '') throw new SecretsError('SOPS_MAC_MISMATCH', 'the file has no MAC: it cannot be verified', ['sops', 'mac']);
  let stored: unknown;
  try {
    stored = decryptValue(file.metadata.mac, dataKey, file.metadata.lastmodified, ['sops', 'mac']);
  } catch {
    throw new SecretsError('SOPS_MAC_MISMATCH', 'the MAC does not decrypt with the file\'s data key and lastmodified: the file was changed without sops', ['sops', 'mac']);
  }
  const a = Buffer.from(String(stored));
  const b = Buffer.from(computed);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new SecretsError('SOPS_MAC_MISMATCH', 'the MAC does not match the values: the file was changed without sops (values added, removed, reordered or replaced)', ['sops', 'mac']);
  }
}
