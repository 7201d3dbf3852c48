/**
 * The pod templates' config hash (`baton.dev/config-hash`) must not change between Baton versions for the same
 * configuration: a new value would roll every pod of every instance on upgrade. enhance.ts builds the hashed text
 * in its own ways for speed (its own key sort, the joined text hashed in one call, one hash per configuration set,
 * its own walk of the pod spec's references);
 * these tests pin the text and the digest to the plain definition: sha256 over `Kind/name=<JSON with keys sorted
 * by Array.prototype.sort>` parts, sorted by kind then name, joined by newlines.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import { addConfigHashes, canonicalJson } from '../../src/render/enhance.js';
import { ANNOTATION_CONFIG_HASH } from '../../src/render/labels.js';

/** The definition, written the slow and obvious way. */
function reference(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const KEYS = ['b', 'a', 'B', '_', 'é', 'z1', 'z10', 'z9', '10', '9', '', 'a.b', 'a-b', 'ä', '\u{1F600}', 'ﬀ', 'Z', 'aa', 'a ', 'a\n'];

describe('config hash', () => {
  it('GIVEN keys in any order (case, digits, non-ASCII, astral, more than the short-list limit) THEN canonicalJson orders them as Array.prototype.sort does', () => {
    const small = Object.fromEntries(KEYS.map((k, i) => [k, i]));
    const nested = { data: small, list: [small, { y: 1, x: [3, 'b', null] }], many: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 40}`, i])) };
    expect(canonicalJson(small)).toBe(reference(small));
    expect(canonicalJson(nested)).toBe(reference(nested));
  });

  it('GIVEN pod templates sharing ConfigMaps and Secrets THEN each hash is the digest of the joined parts, equal for equal sets', () => {
    const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, stringData: { pw: 'x' } };
    const pod = (name: string, kind: string, volumes: unknown[]): KubeObject => ({ apiVersion: 'apps/v1', kind, metadata: { name, namespace: 'ns' }, spec: { template: { metadata: {}, spec: { volumes, containers: [] } } } });
    const objects = [
      cm('b', { 'z.sh': 'echo "b"\n', 'a.conf': 'x=1' }),
      cm('a', { k: 'v' }),
      secret,
      pod('one', 'Deployment', [{ configMap: { name: 'b' } }, { configMap: { name: 'a' } }, { secret: { secretName: 's' } }]),
      pod('two', 'Job', [{ configMap: { name: 'a' } }]),
      pod('three', 'Job', [{ configMap: { name: 'a' } }]),
      pod('none', 'Job', [{ configMap: { name: 'missing' } }]),
    ];
    addConfigHashes(objects);
    const hashOf = (o: KubeObject): string | undefined => ((o.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations ?? {})[ANNOTATION_CONFIG_HASH];
    const content = (o: KubeObject): string => reference({ data: o.data ?? null, stringData: o.stringData ?? null, binaryData: o.binaryData ?? null });
    const digest = (text: string): string => createHash('sha256').update(text).digest('hex');
    expect(hashOf(objects[3]!)).toBe(digest(`ConfigMap/a=${content(objects[1]!)}\nConfigMap/b=${content(objects[0]!)}\nSecret/s=${content(secret)}`));
    expect(hashOf(objects[4]!)).toBe(digest(`ConfigMap/a=${content(objects[1]!)}`));
    expect(hashOf(objects[5]!)).toBe(hashOf(objects[4]!));
    expect(hashOf(objects[6]!)).toBeUndefined();
  });
  it('GIVEN references from every place of a pod spec (volumes, projected sources, envFrom, env of containers and init containers) and non-ASCII data THEN the hash covers exactly those, in kind then name order', () => {
    const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });
    const sec = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns' }, data: { k: Buffer.from(name).toString('base64') } });
    const configs = [cm('vol', { 'a.txt': 'é \u{1F600} "q"\n' }), cm('proj', { x: '1' }), cm('from', { y: '2' }), cm('key', { z: '3' }), cm('init', { w: '4' }), cm('unused', { u: '5' }),
      sec('svol'), sec('sproj'), sec('sfrom'), sec('skey'), sec('sunused')];
    const podSpec = {
      volumes: [{ configMap: { name: 'vol' } }, { secret: { secretName: 'svol' } }, { projected: { sources: [{ configMap: { name: 'proj' } }, { secret: { name: 'sproj' } }, 'junk'] } }, 'junk', { secret: { name: 'unused' } }],
      containers: [{ envFrom: [{ configMapRef: { name: 'from' } }, { secretRef: { name: 'sfrom' } }, 7], env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'key', key: 'z' } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 'skey', key: 'k' } } }, { name: 'C', value: 'x' }] }, null],
      initContainers: [{ env: [{ name: 'D', valueFrom: { configMapKeyRef: { name: 'init', key: 'w' } } }] }],
    };
    const workload: KubeObject = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'w', namespace: 'ns' }, spec: { jobTemplate: { spec: { template: { metadata: {}, spec: podSpec } } } } };
    addConfigHashes([...configs, workload]);
    const byName = new Map(configs.map((o) => [`${o.kind}/${o.metadata.name ?? ''}`, o]));
    const part = (key: string): string => {
      const o = byName.get(key)!;
      return `${key}=${reference({ data: o.data ?? null, stringData: o.stringData ?? null, binaryData: o.binaryData ?? null })}`;
    };
    const expected = ['ConfigMap/from', 'ConfigMap/init', 'ConfigMap/key', 'ConfigMap/proj', 'ConfigMap/vol', 'Secret/sfrom', 'Secret/skey', 'Secret/sproj', 'Secret/svol'].map(part).join('\n');
    const template = ((workload.spec as { jobTemplate: { spec: { template: { metadata: { annotations?: Record<string, string> } } } } }).jobTemplate.spec.template);
    expect(template.metadata.annotations?.[ANNOTATION_CONFIG_HASH]).toBe(createHash('sha256').update(expected).digest('hex'));
  });
});
