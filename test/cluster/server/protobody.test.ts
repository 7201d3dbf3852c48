import { describe, expect, it } from 'vitest';
import { UnsupportedProtobufError, decodeKubeProtobuf } from '../../../src/cluster/server/protobody.js';
import { ProtoWriter } from '../../../src/cluster/server/protowire.js';

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
    ['kubectl create namespace ns1', captured.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {} }],
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

  it('keeps pointer fields set to zero (replicas: 0 means zero, not unset)', () => {
    const meta = new ProtoWriter().string(1, 'zero').finish();
    const spec = new ProtoWriter().uint(1, 0).finish();
    const dep = new ProtoWriter().bytes(1, meta).bytes(2, spec).finish();
    const unknown = new ProtoWriter().message(1, (t) => t.string(1, 'apps/v1').string(2, 'Deployment')).bytes(2, dep).finish();
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
    expect(decodeKubeProtobuf(body)).toMatchObject({ spec: { replicas: 0 } });
  });

  it.each([
    ['a body without the k8s magic', Buffer.from('{"kind":"Pod"}')],
    ['a kind without a field map (Pod)', Buffer.concat([Buffer.from('k8s\0', 'latin1'), new ProtoWriter().message(1, (t) => t.string(1, 'v1').string(2, 'Pod')).finish()])],
  ])('rejects %s as unsupported so the server answers 415', (_name, body) => {
    expect(() => decodeKubeProtobuf(body)).toThrow(UnsupportedProtobufError);
  });
});
