/**
 * Making one generated value from its declaration. Characters are drawn with `crypto.randomInt`
 * (uniform, no modulo bias) from the alphabet; UUIDs are version 4 from `crypto.randomUUID`; bytes
 * come from `crypto.randomBytes`. Nothing here is seeded or reproducible: a value exists only once,
 * in the instance's Secret.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { GenerateDecl } from '../../render/schemas.js';

export const DEFAULT_PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const DEFAULT_TOKEN_ALPHABET = '0123456789abcdef';
export const DEFAULT_LENGTH = { password: 24, token: 40, bytes: 32 } as const;

/** The distinct characters of an alphabet, in order (a repeated character would be drawn more often). */
export function alphabetOf(spec: Extract<GenerateDecl, { kind: 'password' | 'token' }>): string[] {
  const chars = [...(spec.alphabet ?? (spec.kind === 'password' ? DEFAULT_PASSWORD_ALPHABET : DEFAULT_TOKEN_ALPHABET))];
  return [...new Set(chars)];
}

export function generateValue(spec: GenerateDecl): string {
  switch (spec.kind) {
    case 'uuid':
      return randomUUID();
    case 'bytes':
      return randomBytes(spec.length ?? DEFAULT_LENGTH.bytes).toString(spec.encoding ?? 'base64');
    case 'password':
    case 'token': {
      const chars = alphabetOf(spec);
      const length = spec.length ?? DEFAULT_LENGTH[spec.kind];
      let out = '';
      for (let i = 0; i < length; i++) out += chars[randomInt(chars.length)]!;
      return out;
    }
  }
}

/** A value of the declared shape that is obviously not a secret, for renders that cannot read the cluster. */
export function placeholderValue(spec: GenerateDecl): string {
  switch (spec.kind) {
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'bytes':
      return Buffer.alloc(spec.length ?? DEFAULT_LENGTH.bytes).toString(spec.encoding ?? 'base64');
    case 'password':
    case 'token':
      return alphabetOf(spec)[0]!.repeat(spec.length ?? DEFAULT_LENGTH[spec.kind]);
  }
}
