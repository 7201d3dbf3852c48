/**
 * An instance's values from values files, SOPS-encrypted params, and valuesFrom Secrets/ConfigMaps:
 * merge order, sensitivity, and each failure (no key, tampered file, missing Secret) as a located
 * problem; lenient mode (validate, preview) says what it could not read instead of failing.
 */
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseYamlFile } from '../../src/render/source.js';
import { MemoryTree } from '../../src/render/tree.js';
import { AgeKeyring } from '../../src/secrets/age-keyring.js';
import { resolveInstanceValues, type InstanceValuesInput } from '../../src/secrets/instance-values.js';
import type { ValuesFromRef } from '../../src/secrets/values-from.js';
import { clusterValuesVersion } from '../../src/secrets/values-from.js';
import { FakeKube } from '../plans/fake-client.js';
import { sopsEncrypt } from './sops-encrypt.js';

const TYPES = new Map([['PASSWORD', 'string'], ['REPLICAS', 'integer'], ['DEBUG', 'boolean'], ['NAME', 'string'], ['TOKEN', 'string']]);
let identity: string;
let recipient: string;
let keys: AgeKeyring;

beforeAll(async () => {
  identity = await generateIdentity();
  recipient = await identityToRecipient(identity);
  keys = await AgeKeyring.parse(identity, 'test key');
});

function input(file: string, text: string, extra: { valuesFiles?: string[]; valuesFrom?: ValuesFromRef[] } = {}): InstanceValuesInput {
  const source = parseYamlFile(file, text);
  const value = source.value as { params?: Record<string, unknown> };
  return { source, namespace: 'shop', params: value.params ?? {}, valuesFiles: extra.valuesFiles ?? [], valuesFrom: extra.valuesFrom ?? [], paramTypes: TYPES };
}

async function encryptedInstance(): Promise<string> {
  return sopsEncrypt({ apiVersion: 'baton.dev/v1alpha1', kind: 'Instance', framework: 'web', version: '1.0.0', params: { REPLICAS: 2, PASSWORD: 'correct-horse-battery' } }, { recipients: [recipient], encryptedRegex: '^PASSWORD$' });
}

function secret(name: string, data: Record<string, string>): FakeKube {
  const kube = new FakeKube();
  kube.objects.set(`v1/Secret/shop/${name}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'shop', uid: 'u1', resourceVersion: '5' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });
  return kube;
}

describe('SOPS-encrypted instance params', () => {
  it('decrypts with a key; the parameter becomes sensitive and its value is masked', async () => {
    const file = 'instances/shop/site.yaml';
    const text = await encryptedInstance();
    const out = await resolveInstanceValues(new MemoryTree({ [file]: text }), input(file, text), { keys });
    expect(out.problems).toEqual([]);
    expect(out.params).toEqual({ REPLICAS: 2, PASSWORD: 'correct-horse-battery' });
    expect(out.sensitiveParams).toEqual(['PASSWORD']);
    expect(out.secrets).toEqual(['correct-horse-battery']);
  });

  it('without a key: the agent gets an error, validate a warning naming what is not checked', async () => {
    const file = 'instances/shop/site.yaml';
    const text = await encryptedInstance();
    const strict = await resolveInstanceValues(new MemoryTree(), input(file, text), {});
    expect(strict.problems.map((p) => [p.code, p.severity])).toEqual([['SOPS_NO_KEY', 'error']]);
    const lenient = await resolveInstanceValues(new MemoryTree(), input(file, text), { lenient: true });
    expect(lenient.problems.map((p) => [p.code, p.severity])).toEqual([['SOPS_NO_KEY', 'warning']]);
    expect(lenient.problems[0]?.message).toContain('PASSWORD is encrypted for');
    expect(lenient.problems[0]?.message).toContain('not checked');
    expect(lenient.params).toEqual({ REPLICAS: 2 });
    expect(lenient.unseenParams).toEqual(['PASSWORD']);
  });

  it('a tampered file is an error even in lenient mode, located at the changed value', async () => {
    const file = 'instances/shop/site.yaml';
    const text = (await encryptedInstance()).replace('REPLICAS: 2', 'REPLICAS: 20');
    const out = await resolveInstanceValues(new MemoryTree(), input(file, text), { keys, lenient: true });
    expect(out.problems.map((p) => [p.code, p.severity, p.file])).toEqual([['SOPS_MAC_MISMATCH', 'error', file]]);
    expect(out.problems[0]?.line).toBeGreaterThan(1);
  });

  it('refuses encryption outside params (framework and version must stay readable)', async () => {
    const file = 'instances/shop/site.yaml';
    const text = await sopsEncrypt({ framework: 'web', version: '1.0.0', params: { NAME: 'x' } }, { recipients: [recipient] });
    const out = await resolveInstanceValues(new MemoryTree(), input(file, text), { keys });
    expect(out.problems[0]?.code).toBe('SOPS_UNSUPPORTED');
    expect(out.problems[0]?.path).toEqual(['framework']);
  });
});

describe('values files', () => {
  it('merge in order under the inline params; an encrypted values file is decrypted', async () => {
    const plain = 'REPLICAS: 1\nNAME: from-file\n';
    const enc = await sopsEncrypt({ TOKEN: 'tok-123456', NAME: 'from-secret-file' }, { recipients: [recipient] });
    const file = 'instances/shop/site.yaml';
    const text = 'framework: web\nvalueFiles: x\nparams:\n  REPLICAS: 3\n';
    const tree = new MemoryTree({ 'values/shop/site.yaml': plain, 'values/shop/site.secrets.yaml': enc });
    const out = await resolveInstanceValues(tree, input(file, text, { valuesFiles: ['values/shop/site.yaml', 'values/shop/site.secrets.yaml'] }), { keys });
    expect(out.problems).toEqual([]);
    expect(out.params).toEqual({ REPLICAS: 3, NAME: 'from-secret-file', TOKEN: 'tok-123456' });
    expect(out.sensitiveParams).toEqual(['NAME', 'TOKEN']);
  });

  it('a missing values file, one outside the repository or under instances/ is a located problem', async () => {
    const file = 'instances/shop/site.yaml';
    const text = 'params: {}\nvaluesFiles:\n  - values/none.yaml\n  - ../etc/passwd\n  - instances/shop/other.yaml\n';
    const out = await resolveInstanceValues(new MemoryTree(), input(file, text, { valuesFiles: ['values/none.yaml', '../etc/passwd', 'instances/shop/other.yaml'] }), {});
    expect(out.problems.map((p) => [p.code, p.line])).toEqual([['VALUES_FILE_INVALID', 3], ['VALUES_FILE_INVALID', 4], ['VALUES_FILE_INVALID', 5]]);
  });
});

describe('valuesFrom', () => {
  const file = 'instances/shop/site.yaml';
  const text = 'params:\n  NAME: inline\nvaluesFrom:\n  - kind: Secret\n    name: db\n';

  it('reads every entry of a Secret as a parameter, converted to its declared type, sensitive', async () => {
    const kube = secret('db', { PASSWORD: 'pw-from-secret', REPLICAS: '4', DEBUG: 'true' });
    const out = await resolveInstanceValues(new MemoryTree(), input(file, text, { valuesFrom: [{ kind: 'Secret', name: 'db' }] }), { cluster: kube });
    expect(out.problems).toEqual([]);
    expect(out.params).toEqual({ NAME: 'inline', PASSWORD: 'pw-from-secret', REPLICAS: 4, DEBUG: true });
    expect(out.sensitiveParams).toEqual(['DEBUG', 'PASSWORD', 'REPLICAS']);
    expect(out.secrets).toContain('pw-from-secret');
  });

  it('reads one key as one parameter, or a key holding a YAML map; a ConfigMap is not sensitive', async () => {
    const kube = secret('db', { password: 'pw-x-123' });
    kube.objects.set('v1/ConfigMap/shop/cfg', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data: { 'values.yaml': 'REPLICAS: 7\nNAME: cm\n' } });
    const refs: ValuesFromRef[] = [{ kind: 'ConfigMap', name: 'cfg', key: 'values.yaml' }, { kind: 'Secret', name: 'db', key: 'password', param: 'PASSWORD' }];
    const out = await resolveInstanceValues(new MemoryTree(), input(file, 'params: {}\n', { valuesFrom: refs }), { cluster: kube });
    expect(out.params).toEqual({ REPLICAS: 7, NAME: 'cm', PASSWORD: 'pw-x-123' });
    expect(out.sensitiveParams).toEqual(['PASSWORD']);
  });

  it('a missing Secret refuses (located at the entry) unless optional; validate only says it cannot see it', async () => {
    const refs: ValuesFromRef[] = [{ kind: 'Secret', name: 'db' }];
    const missing = await resolveInstanceValues(new MemoryTree(), input(file, text, { valuesFrom: refs }), { cluster: new FakeKube() });
    expect(missing.problems.map((p) => [p.code, p.severity, p.line])).toEqual([['VALUES_FROM_MISSING', 'error', 4]]);
    expect(missing.problems[0]?.message).toBe('Secret shop/db does not exist (create it, or mark the entry optional: true)');
    const optional = await resolveInstanceValues(new MemoryTree(), input(file, text, { valuesFrom: [{ ...refs[0]!, optional: true }] }), { cluster: new FakeKube() });
    expect(optional.problems).toEqual([]);
    const unseen = await resolveInstanceValues(new MemoryTree(), input(file, text, { valuesFrom: refs }), { lenient: true });
    expect(unseen.problems.map((p) => [p.code, p.severity])).toEqual([['VALUES_FROM_UNSEEN', 'warning']]);
    expect(unseen.unseenCluster).toBe(true);
  });

  it('the version of the referenced objects changes when a Secret is created or updated, never showing its data', async () => {
    const refs: ValuesFromRef[] = [{ kind: 'Secret', name: 'db' }];
    const kube = new FakeKube();
    const before = await clusterValuesVersion(kube, 'shop', refs);
    expect(before).toBe('Secret/db=missing');
    await kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { PASSWORD: Buffer.from('s3cret-value').toString('base64') } });
    const created = await clusterValuesVersion(kube, 'shop', refs);
    expect(created).not.toBe(before);
    expect(created).not.toContain('s3cret');
  });
});
