/**
 * SOPS decryption against a file written by the real sops binary and against files written by the
 * test encryptor (which follows the published format): values and their types, the MAC, and every
 * kind of tampering or missing key, each a typed error that names no secret.
 */
import { readFileSync } from 'node:fs';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { AgeKeyring } from '../../src/secrets/age-keyring.js';
import { SecretsError } from '../../src/secrets/errors.js';
import { decryptSops, lockedSops } from '../../src/secrets/sops.js';
import { formatFloat } from '../../src/secrets/sops-values.js';
import { sopsEncrypt } from './sops-encrypt.js';

/** The test-only identity published with the fixture (see test/fixtures/sops/README.md). */
const FIXTURE_KEY = 'AGE-SECRET-KEY-1QXRVEJH9S4NQU0FPD6V79ESZQ8S6PXH3L8V40EVPTHFH6KNKD4DQ7SKC4P';
const fixture = readFileSync('test/fixtures/sops/sops-3.8.1-age.enc.yaml', 'utf8');

async function failure(p: Promise<unknown>): Promise<SecretsError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(SecretsError);
  return err as SecretsError;
}

describe('a file written by sops 3.8.1', () => {
  it('decrypts to the plain values with their types, and its MAC verifies', async () => {
    const out = await decryptSops(fixture, await AgeKeyring.parse(`# test key\n${FIXTURE_KEY}\n`, 'key.txt'));
    expect(out.value).toEqual({
      secret: 'this is a secret', string: 'string', int: 7, float: 3.14, boolean: true,
      complex: { value: 'this is a secret', array: ['one', 'two', 'three'] },
    });
    expect(out.encryptedPaths).toContainEqual(['complex', 'array', 2]);
    expect(out.secrets).toEqual(expect.arrayContaining(['this is a secret', 'string', '7', '3.14', 'one']));
    expect(out.secrets).not.toContain('true');
  });

  it('refuses a changed value, a swapped pair of values and a changed lastmodified', async () => {
    const keys = await AgeKeyring.parse(FIXTURE_KEY, 'key.txt');
    const changed = fixture.replace('data:LNzAFGse', 'data:LNzAFGsf');
    expect((await failure(decryptSops(changed, keys))).code).toBe('SOPS_DECRYPT_FAILED');
    expect((await failure(decryptSops(changed, keys))).path).toEqual(['string']);
    // The same ciphertext moved to another key does not decrypt: values are bound to their path.
    const lines = fixture.split('\n');
    const swapped = [lines[1]!.replace(/^string/, 'secret'), lines[0]!.replace(/^secret/, 'string'), ...lines.slice(2)].join('\n');
    expect((await failure(decryptSops(swapped, keys))).code).toBe('SOPS_DECRYPT_FAILED');
    const later = fixture.replace('lastmodified: "2024-03-25T22:08:10Z"', 'lastmodified: "2024-03-25T22:08:11Z"');
    expect((await failure(decryptSops(later, keys))).code).toBe('SOPS_MAC_MISMATCH');
  });

  it('refuses a removed value, a reordered list and a value replaced by plain text (MAC)', async () => {
    const keys = await AgeKeyring.parse(FIXTURE_KEY, 'key.txt');
    const removed = fixture.split('\n').filter((l) => !l.startsWith('float:')).join('\n');
    expect((await failure(decryptSops(removed, keys))).code).toBe('SOPS_MAC_MISMATCH');
    const lines = fixture.split('\n');
    const i = lines.findIndex((l) => l.includes('data:dDBg'));
    const reordered = [...lines];
    [reordered[i], reordered[i + 1]] = [lines[i + 1]!, lines[i]!];
    expect((await failure(decryptSops(reordered.join('\n'), keys))).code).toBe('SOPS_MAC_MISMATCH');
    const plain = fixture.replace(/^string: .*$/m, 'string: hello');
    const err = await failure(decryptSops(plain, keys));
    expect(err.code).toBe('SOPS_MAC_MISMATCH');
    expect(err.path).toEqual(['string']);
  });

  it('without the key: SOPS_NO_KEY naming the recipients, never a secret', async () => {
    const other = await AgeKeyring.parse(await generateIdentity(), 'SOPS_AGE_KEY');
    const err = await failure(decryptSops(fixture, other));
    expect(err.code).toBe('SOPS_NO_KEY');
    expect(err.message).toContain('age1je6kjhzuhdjy3fqptpttxjh5k8q46vygzlgtpuq3030c947pc5tqz9dqvr');
    expect(err.message).toContain('SOPS_AGE_KEY');
    expect(err.message).not.toMatch(/AGE-SECRET-KEY/);
    expect((await failure(decryptSops(fixture, new AgeKeyring()))).code).toBe('SOPS_NO_KEY');
  });

  it('without a key, its structure, encrypted paths and types can still be read', () => {
    const locked = lockedSops(fixture);
    expect(Object.keys(locked.value)).toEqual(['secret', 'string', 'int', 'float', 'boolean', 'complex']);
    expect(locked.value.int).toBeUndefined();
    expect(locked.encrypted).toContainEqual({ path: ['int'], type: 'int' });
    expect(locked.recipients).toHaveLength(3);
  });
});

describe('files written per the SOPS format', () => {
  it('round-trips with encrypted_regex: unmatched values stay readable and are covered by the MAC', async () => {
    const identity = await generateIdentity();
    const text = await sopsEncrypt({ framework: 'web', params: { REPLICAS: 2, PASSWORD: 'hunter2-long', nested: { TOKEN: 'abc' } } }, { recipients: [await identityToRecipient(identity)], encryptedRegex: '^(PASSWORD|TOKEN)$' });
    expect(text).toContain('framework: web');
    expect(text).toContain('REPLICAS: 2');
    expect(text).not.toContain('hunter2');
    const keys = await AgeKeyring.parse(identity, 'keys.txt');
    const out = await decryptSops(text, keys);
    expect(out.value).toEqual({ framework: 'web', params: { REPLICAS: 2, PASSWORD: 'hunter2-long', nested: { TOKEN: 'abc' } } });
    expect(out.encryptedPaths).toEqual([['params', 'PASSWORD'], ['params', 'nested', 'TOKEN']]);
    // A readable value changed in Git without sops is caught by the MAC.
    expect((await failure(decryptSops(text.replace('REPLICAS: 2', 'REPLICAS: 3'), keys))).code).toBe('SOPS_MAC_MISMATCH');
  });

  it('encrypted_regex runs on RE2 as in sops (Go): a catastrophic pattern does not freeze the reader, ECMAScript-only syntax is refused', async () => {
    const identity = await generateIdentity();
    const key = `${'a'.repeat(40)}!`;
    const text = await sopsEncrypt({ params: { [key]: 'readable', PASSWORD: 'hunter2-long' } }, { recipients: [await identityToRecipient(identity)], encryptedRegex: '^PASSWORD$' });
    expect(text).toContain('encrypted_regex: ^PASSWORD$');
    const keys = await AgeKeyring.parse(identity, 'keys.txt');
    // With V8's backtracking engine, ^(PASSWORD|(a+)+)$ against 40 a's and a '!' does not finish in hours.
    const catastrophic = text.replace('encrypted_regex: ^PASSWORD$', () => "encrypted_regex: '^(PASSWORD|(a+)+)$'");
    expect((await decryptSops(catastrophic, keys)).value).toEqual({ params: { [key]: 'readable', PASSWORD: 'hunter2-long' } });
    const lookahead = text.replace('encrypted_regex: ^PASSWORD$', () => "encrypted_regex: '^(?=P)PASSWORD$'");
    const err = await failure(decryptSops(lookahead, keys));
    expect(err.code).toBe('SOPS_INVALID');
    expect(err.message).toContain('encrypted_regex');
  });

  it('with mac_only_encrypted, readable values may change; encrypted ones may not', async () => {
    const identity = await generateIdentity();
    const text = await sopsEncrypt({ params: { REPLICAS: 2, PASSWORD: 'hunter2-long' } }, { recipients: [await identityToRecipient(identity)], encryptedRegex: '^PASSWORD$', macOnlyEncrypted: true });
    const keys = await AgeKeyring.parse(identity, 'keys.txt');
    expect((await decryptSops(text.replace('REPLICAS: 2', 'REPLICAS: 3'), keys)).value).toEqual({ params: { REPLICAS: 3, PASSWORD: 'hunter2-long' } });
  });

  it('decrypts with any one of several recipients', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const text = await sopsEncrypt({ x: 'secret-value' }, { recipients: [await identityToRecipient(a), await identityToRecipient(b)] });
    expect((await decryptSops(text, await AgeKeyring.parse(b, 'b'))).value).toEqual({ x: 'secret-value' });
  });

  it('refuses Shamir key groups, comment rules and files with no age recipient, as unsupported', async () => {
    const base = 'x: ENC[AES256_GCM,data:AA==,iv:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=,tag:AAAAAAAAAAAAAAAAAAAAAA==,type:str]\nsops:\n  lastmodified: "2026-01-01T00:00:00Z"\n  mac: ""\n';
    const keys = await AgeKeyring.parse(await generateIdentity(), 'k');
    const groups = `${base}  key_groups:\n    - age: [{recipient: a, enc: b}]\n    - age: [{recipient: c, enc: d}]\n`;
    expect((await failure(decryptSops(groups, keys))).code).toBe('SOPS_UNSUPPORTED');
    expect((await failure(decryptSops(`${base}  age: [{recipient: a, enc: b}]\n  encrypted_comment_regex: x\n`, keys))).code).toBe('SOPS_UNSUPPORTED');
    const pgp = await failure(decryptSops(`${base}  pgp: [{fp: F00}]\n`, keys));
    expect(pgp.code).toBe('SOPS_UNSUPPORTED');
    expect(pgp.message).toContain('pgp');
  });
});

describe('age keys', () => {
  it('reads age-keygen files (comments, several keys) and names only public keys', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const ring = await AgeKeyring.parse(`# created: 2026-01-01\n# public key: ${await identityToRecipient(a)}\n${a}\n\n${b}\n`, 'keys.txt');
    expect(ring.size).toBe(2);
    expect(ring.recipients).toEqual([await identityToRecipient(a), await identityToRecipient(b)]);
  });

  it('refuses a malformed line without echoing it', async () => {
    const err = await failure(AgeKeyring.parse('AGE-SECRET-KEY-1NOTAKEYATALL-but-secretish', 'BATON secret baton-system/age'));
    expect(err.code).toBe('AGE_KEY_INVALID');
    expect(err.message).toContain('line 1');
    expect(err.message).not.toContain('secretish');
  });
});

describe('Go float formatting (the MAC of plain floats)', () => {
  it.each([[3.14, '3.14'], [1e21, '1000000000000000000000'], [1.5e-7, '0.00000015'], [-2.5e22, '-25000000000000000000000'], [0.1, '0.1']])('%s -> %s', (n, text) => {
    expect(formatFloat(n)).toBe(text);
  });
});
