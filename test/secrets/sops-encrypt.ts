/**
 * A SOPS encryptor for tests, written from the SOPS file format (sops 3.x sops.go Encrypt, aes/cipher.go,
 * age keysource): a random 32-byte data key wrapped for each age recipient (armored), every value
 * encrypted with AES-256-GCM bound to its path, the MAC (SHA-512 over the plain values, uppercase hex)
 * encrypted bound to `lastmodified`. Users encrypt with the sops CLI; tests need files made on the fly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Encrypter, armor } from 'age-encryption';
import { stringify } from 'yaml';
import { encryptValue, macBytes } from '../../src/secrets/sops-values.js';

export interface EncryptOptions {
  recipients: string[];
  encryptedRegex?: string;
  unencryptedSuffix?: string;
  macOnlyEncrypted?: boolean;
  lastModified?: string;
}

export async function sopsEncrypt(plain: Record<string, unknown>, options: EncryptOptions): Promise<string> {
  const dataKey = randomBytes(32);
  const hash = createHash('sha512');
  if (options.macOnlyEncrypted) hash.update(createHash('sha256').update('sops').digest());
  const unencryptedSuffix = options.encryptedRegex === undefined ? (options.unencryptedSuffix ?? '_unencrypted') : undefined;
  const encrypted = (keys: string[]): boolean => {
    if (options.encryptedRegex !== undefined) return keys.some((k) => new RegExp(options.encryptedRegex!).test(k));
    return !keys.some((k) => unencryptedSuffix !== undefined && k.endsWith(unencryptedSuffix));
  };
  const walk = (v: unknown, keys: string[]): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, keys));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...keys, k])]));
    if (v === null) return null;
    const enc = encrypted(keys);
    if (enc || !options.macOnlyEncrypted) hash.update(macBytes(v));
    return enc ? encryptValue(v, dataKey, `${keys.join(':')}:`) : v;
  };
  const body = walk(plain, []) as Record<string, unknown>;
  const lastmodified = options.lastModified ?? '2026-01-02T03:04:05Z';
  const age = [];
  for (const recipient of options.recipients) {
    const e = new Encrypter();
    e.addRecipient(recipient);
    age.push({ recipient, enc: armor.encode(await e.encrypt(dataKey)) });
  }
  const sops: Record<string, unknown> = {
    age,
    lastmodified,
    mac: encryptValue(hash.digest('hex').toUpperCase(), dataKey, lastmodified),
    ...(unencryptedSuffix !== undefined ? { unencrypted_suffix: unencryptedSuffix } : {}),
    ...(options.encryptedRegex !== undefined ? { encrypted_regex: options.encryptedRegex } : {}),
    ...(options.macOnlyEncrypted ? { mac_only_encrypted: true } : {}),
    version: '3.9.4',
  };
  return stringify({ ...body, sops }, { lineWidth: 0 });
}
