import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { ProtoDecodeError, UnsupportedProtobufError, decodeKubeProtobuf, goDuration } from '../../../src/cluster/server/protobody.js';

// Bodies captured from `kubectl.1.33 create ...` (Content-Type: application/vnd.kubernetes.protobuf).
const captured = {
  namespace: 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDbnMxEgAaACIAKgAyADgAQgASABoCCgAaACIA',
  configmap: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEioKFgoDY20xEgAaA25zMSIAKgAyADgAQgASBgoBYRIBMRIICgFiEgN0d28aACIA',
  secret: 'azhzAAoMCgJ2MRIGU2VjcmV0Ei0KFQoCczESABoDbnMxIgAqADIAOABCABIMCgJwdxIGc2VjcmV0GgZPcGFxdWUaACIA',
  deployment:
    'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EsABCiIKA3dlYhIAGgNuczEiACoAMgA4AEIAWgoKA2FwcBIDd2ViEosBCAMSDAoKCgNhcHASA3dlYhpxChwKABIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViElESMwoFbmdpbngSCm5naW54OjEuMjcqADIKCgAQABhQIgAqAEIAagByAIABAIgBAJABAKIBABoAMgBCAEoAUgBYAGAAaACCAQCKAQCaAQDCAQAiAgoAKAA4ABoMCAAQABgAIAAoADgAGgAiAA==',
  job: 'azhzAAoPCghiYXRjaC92MRIDSm9iEpEBChUKAmoxEgAaA25zMSIAKgAyADgAQgASbjJsChAKABIAGgAiACoAMgA4AEIAElgSNQoCajESB2J1c3lib3gaBGVjaG8aBWhlbGxvGgV3b3JsZCoAQgBqAHIAgAEAiAEAkAEAogEAGgVOZXZlcjIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAGgggACgAMAA6ABoAIgA=',
};

const decode = (b64: string): Record<string, unknown> => decodeKubeProtobuf(Buffer.from(b64, 'base64'));

describe('decoding the protobuf bodies kubectl 1.32/1.33 send for create', () => {
  it.each([
    ['kubectl create namespace ns1', captured.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {}, status: {} }],
    [
      'kubectl create configmap cm1 --from-literal=a=1 --from-literal=b=two',
      captured.configmap,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'ns1' }, data: { a: '1', b: 'two' } },
    ],
    [
      'kubectl create secret generic s1 --from-literal=pw=secret (bytes become base64 as in JSON)',
      captured.secret,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'ns1' }, data: { pw: Buffer.from('secret').toString('base64') }, type: 'Opaque' },
    ],
    [
      'kubectl create deployment web --image=nginx:1.27 --replicas=3 --port=80',
      captured.deployment,
      {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns1', labels: { app: 'web' } },
        spec: {
          replicas: 3, selector: { matchLabels: { app: 'web' } }, strategy: {},
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: {} }] } },
        },
        status: {},
      },
    ],
    [
      'kubectl create job j1 --image=busybox -- echo hello world',
      captured.job,
      {
        apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1', namespace: 'ns1' },
        spec: { template: { metadata: {}, spec: { containers: [{ name: 'j1', image: 'busybox', command: ['echo', 'hello', 'world'], resources: {} }], restartPolicy: 'Never' } } },
        status: {},
      },
    ],
  ])('GIVEN the body of `%s` THEN it decodes to the JSON kubectl would have sent', (_name, body, expected) => {
    expect(decode(body)).toEqual(expected);
  });

  /** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}, written field by field. */
  const envelope = (apiVersion: string, kind: string, raw: Uint8Array): Buffer => {
    const w = protobuf.Writer.create();
    w.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string(apiVersion).uint32((2 << 3) | 2).string(kind).ldelim();
    w.uint32((2 << 3) | 2).bytes(raw);
    return Buffer.concat([Buffer.from('k8s\0', 'latin1'), w.finish()]);
  };
  const message = (build: (w: protobuf.Writer) => void): Uint8Array => {
    const w = protobuf.Writer.create();
    build(w);
    return w.finish();
  };

  it('keeps pointer fields set to zero (replicas: 0) and drops the zero values of plain Go fields (minReadySeconds: 0)', () => {
    const meta = message((w) => w.uint32((1 << 3) | 2).string('zero').uint32((2 << 3) | 2).string(''));
    const spec = message((w) => w.uint32((1 << 3) | 0).int32(0).uint32((5 << 3) | 0).int32(0).uint32((7 << 3) | 0).bool(false));
    const dep = message((w) => w.uint32((1 << 3) | 2).bytes(meta).uint32((2 << 3) | 2).bytes(spec));
    expect(decodeKubeProtobuf(envelope('apps/v1', 'Deployment', dep))).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'zero' }, spec: { replicas: 0 } });
  });

  it('decodes kinds the old hand-written decoder refused: a ClusterRole with rules, an Ingress with an IntOrString-free backend', () => {
    const rule = message((w) => w.uint32((1 << 3) | 2).string('get').uint32((1 << 3) | 2).string('list').uint32((2 << 3) | 2).string('').uint32((3 << 3) | 2).string('pods'));
    const role = message((w) => w.uint32((1 << 3) | 2).bytes(message((m) => m.uint32((1 << 3) | 2).string('reader'))).uint32((2 << 3) | 2).bytes(rule));
    expect(decodeKubeProtobuf(envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', role))).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    });
  });

  it('writes Go durations as Go prints them', () => {
    expect([0, 1.5e9, 90e9, 3.6e12, 5e6].map(goDuration)).toEqual(['0s', '1.5s', '1m30s', '1h0m0s', '5ms']);
  });

  it.each([
    ['a body without the k8s magic', Buffer.from('{"kind":"Pod"}')],
    ['a kind the Kubernetes schemas do not have', envelope('example.com/v1', 'Widget', new Uint8Array())],
  ])('rejects %s as unsupported so the server answers 415', (_name, body) => {
    expect(() => decodeKubeProtobuf(body)).toThrow(UnsupportedProtobufError);
  });

  it('rejects a truncated body as a decode error (400)', () => {
    const body = envelope('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x20, 0x01]));
    expect(() => decodeKubeProtobuf(body)).toThrow(ProtoDecodeError);
  });
});
