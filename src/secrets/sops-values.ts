/**
 * One SOPS value: `ENC[AES256_GCM,data:<b64>,iv:<b64>,tag:<b64>,type:<str|int|float|bool|bytes|comment>]`,
 * AES-256-GCM with the file's 32-byte data key, a 32-byte nonce, and as additional data the path of
 * the value's keys joined with ":" plus a trailing ":" (list indexes are not part of it). This follows
 * the SOPS file format as implemented by sops 3.x (aes/cipher.go, sops.go ToBytes).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretsError } from './errors.js';

export type SopsValueType = 'str' | 'int' | 'float' | 'bool' | 'bytes' | 'comment';
const TYPES: ReadonlySet<string> = new Set(['str', 'int', 'float', 'bool', 'bytes', 'comment']);

const ENC = /^ENC\[AES256_GCM,data:(.*),iv:(.+),tag:(.+),type:(.+)\]$/;
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface EncryptedValue {
  data: Buffer;
  iv: Buffer;
  tag: Buffer;
  type: SopsValueType;
}

export function isEncryptedValue(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('ENC[AES256_GCM,');
}

export function parseEncryptedValue(text: string, path: (string | number)[]): EncryptedValue {
  const m = ENC.exec(text);
  const [data, iv, tag, type] = [m?.[1], m?.[2], m?.[3], m?.[4]];
  if (data === undefined || iv === undefined || tag === undefined || type === undefined || ![data, iv, tag].every((p) => B64.test(p))) {
    throw new SecretsError('SOPS_INVALID', 'the value is not a well-formed SOPS value ENC[AES256_GCM,data:...,iv:...,tag:...,type:...]', path);
  }
  if (!TYPES.has(type)) throw new SecretsError('SOPS_INVALID', `unknown SOPS value type "${type}" (expected str, int, float, bool or bytes)`, path);
  const parsed = { data: Buffer.from(data, 'base64'), iv: Buffer.from(iv, 'base64'), tag: Buffer.from(tag, 'base64'), type: type as SopsValueType };
  if (parsed.tag.length !== 16 || parsed.iv.length === 0) throw new SecretsError('SOPS_INVALID', 'a SOPS value needs a 16-byte tag and a nonce', path);
  return parsed;
}

/** The additional authenticated data of a value: its map keys joined by ":", plus ":". */
export function additionalData(keys: readonly string[]): string {
  return `${keys.join(':')}:`;
}

/** Decrypts one value to its typed plain value. A wrong key or a changed value fails (GCM tag). */
export function decryptValue(text: string, dataKey: Uint8Array, aad: string, path: (string | number)[]): unknown {
  // sops never encrypts empty strings: an empty value stays empty.
  if (text === '') return '';
  const enc = parseEncryptedValue(text, path);
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, enc.iv, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(enc.tag);
    plain = Buffer.concat([decipher.update(enc.data), decipher.final()]);
  } catch {
    throw new SecretsError('SOPS_DECRYPT_FAILED', 'the value does not decrypt with the file\'s data key: it was changed, moved to another key, or copied from another file', path);
  }
  return fromPlainBytes(plain, enc.type, path);
}

function fromPlainBytes(plain: Buffer, type: SopsValueType, path: (string | number)[]): unknown {
  const text = plain.toString('utf8');
  switch (type) {
    case 'str':
    case 'comment':
      return text;
    case 'bytes':
      return text;
    case 'int': {
      if (!/^[+-]?\d+$/.test(text)) throw new SecretsError('SOPS_INVALID', 'a value of type int does not hold an integer', path);
      return Number.parseInt(text, 10);
    }
    case 'float': {
      const n = Number(text);
      if (text.trim() === '' || Number.isNaN(n)) throw new SecretsError('SOPS_INVALID', 'a value of type float does not hold a number', path);
      return n;
    }
    case 'bool': {
      // Go's strconv.ParseBool.
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
      throw new SecretsError('SOPS_INVALID', 'a value of type bool does not hold a boolean', path);
    }
  }
}

/** Go's strconv.FormatFloat(f, 'f', -1, 64): the shortest exact decimal, never in exponent form. */
export function formatFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign = '', int = '', frac = '', expText = '0'] = m;
  const exp = Number(expText);
  const digits = int + frac;
  const point = int.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** sops' ToBytes: the bytes of a plain value that go into the MAC. */
export function macBytes(value: unknown): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (typeof value === 'boolean') return Buffer.from(value ? 'True' : 'False');
  if (typeof value === 'number') return Buffer.from(Number.isInteger(value) ? String(value) : formatFloat(value));
  if (typeof value === 'bigint') return Buffer.from(value.toString());
  throw new SecretsError('SOPS_INVALID', `a value of type ${typeof value} cannot be part of a SOPS file`);
}

/**
 * Encrypts one value exactly as sops does (for tests and fixtures: users encrypt with the sops CLI).
 * Empty strings stay empty, as sops leaves them.
 */
export function encryptValue(value: unknown, dataKey: Uint8Array, aad: string, iv: Uint8Array = randomBytes(32)): string {
  if (value === '') return '';
  const type: SopsValueType = typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : 'str';
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(macBytes(value)), cipher.final()]);
  return `ENC[AES256_GCM,data:${data.toString('base64')},iv:${Buffer.from(iv).toString('base64')},tag:${cipher.getAuthTag().toString('base64')},type:${type}]`;
}
