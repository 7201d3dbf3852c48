/**
 * kubectl against the simulated API server: the dispatcher on the PATH (which runs 1.33 because the
 * server reports 1.33) and the oldest and newest versioned binaries directly, each with a fresh cache.
 * One server for the file; each binary works in its own namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCluster, kubectlBinaries, startTestCluster } from '../../helpers/cluster.js';

const bins = kubectlBinaries();
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster();
});
afterAll(async () => {
  await c?.stop();
});

const deployment = (ns: string, name: string, image: string): string => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
  labels: {app: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: main
        image: ${image}
        ports: [{containerPort: 80}]
`;

/** Splits `kubectl get` table output into rows of cells. */
const table = (out: string): string[][] => out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));

describe.runIf(bins !== undefined).each([
  ['the dispatcher on the PATH (runs 1.33)', 'kubectl', 'disp'],
  ['kubectl 1.27 (OpenAPI v2 protobuf, aggregated discovery v2beta1)', bins?.oldest ?? '', 'k127'],
  ['kubectl 1.33 (protobuf create bodies)', bins?.newest ?? '', 'k133'],
])('%s', (_name, bin, ns) => {
  const k = (args: string[], input?: string) => c.kubectl(args, { bin, ...(input !== undefined ? { input } : {}) });

  it('creates a namespace and a configmap, and lists them as tables with real columns', async () => {
    expect((await k(['create', 'namespace', ns])).stdout).toBe(`namespace/${ns} created\n`);
    expect((await k(['create', 'configmap', 'settings', '-n', ns, '--from-literal=a=1', '--from-literal=b=2'])).stdout).toBe('configmap/settings created\n');
    const rows = table((await k(['get', 'configmaps', 'settings', '-n', ns])).stdout);
    expect(rows[0]).toEqual(['NAME', 'DATA', 'AGE']);
    expect(rows[1]?.slice(0, 2)).toEqual(['settings', '2']);
    expect(table((await k(['get', 'ns', ns])).stdout)).toEqual([['NAME', 'STATUS', 'AGE'], [ns, 'Active', expect.stringMatching(/^\d+s$/)]]);
  });

  it('applies client-side, re-applies a change as a strategic merge patch, and shows deployment columns', async () => {
    expect((await k(['apply', '-f', '-'], deployment(ns, 'web', 'nginx:1.27'))).stdout).toBe('deployment.apps/web created\n');
    expect((await k(['apply', '-f', '-'], deployment(ns, 'web', 'nginx:1.27'))).stdout).toBe('deployment.apps/web unchanged\n');
    expect((await k(['apply', '-f', '-'], deployment(ns, 'web', 'nginx:1.28'))).stdout).toBe('deployment.apps/web configured\n');
    const live = JSON.parse((await k(['get', 'deployment', 'web', '-n', ns, '-o', 'json'])).stdout);
    expect(live.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'main', image: 'nginx:1.28', ports: [expect.objectContaining({ containerPort: 80 })] })]);
    expect(table((await k(['get', 'deploy', 'web', '-n', ns])).stdout)[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
  });

  it('applies server-side, creating then updating, with -o yaml showing the result', async () => {
    expect((await k(['apply', '--server-side', '-f', '-'], deployment(ns, 'api', 'busybox:1'))).stdout).toBe('deployment.apps/api serverside-applied\n');
    expect((await k(['apply', '--server-side', '-f', '-'], deployment(ns, 'api', 'busybox:2'))).stdout).toBe('deployment.apps/api serverside-applied\n');
    const yaml = (await k(['get', 'deploy', 'api', '-n', ns, '-o', 'yaml'])).stdout;
    expect(yaml).toContain('image: busybox:2');
  });
});

describe.runIf(bins !== undefined)('kubectl (the dispatcher) for the rest of the everyday commands', () => {
  const k = (args: string[], input?: string) => c.kubectl(args, input !== undefined ? { input } : {});
  const ns = 'daily';

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
  });

  it('creates deployments, jobs and secrets from protobuf bodies and prints their columns', async () => {
    expect((await k(['create', 'deployment', 'web', '-n', ns, '--image=nginx', '--replicas=3'])).code).toBe(0);
    expect((await k(['create', 'job', 'once', '-n', ns, '--image=busybox', '--', 'echo', 'hi'])).code).toBe(0);
    expect((await k(['create', 'secret', 'generic', 'pw', '-n', ns, '--from-literal=p=s3cret'])).code).toBe(0);
    expect(table((await k(['get', 'deploy', 'web', '-n', ns])).stdout)[1]?.slice(0, 4)).toEqual(['web', '0/3', '0', '0']);
    expect(table((await k(['get', 'jobs', '-n', ns])).stdout)[0]).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(table((await k(['get', 'secret', 'pw', '-n', ns])).stdout)).toEqual([['NAME', 'TYPE', 'DATA', 'AGE'], ['pw', 'Opaque', '1', expect.any(String)]]);
    const secret = JSON.parse((await k(['get', 'secret', 'pw', '-n', ns, '-o', 'json'])).stdout);
    expect(Buffer.from(secret.data.p, 'base64').toString()).toBe('s3cret');
  });

  it('labels and patches with all three patch types', async () => {
    await k(['create', 'configmap', 'p', '-n', ns, '--from-literal=a=1']);
    expect((await k(['label', 'configmap', 'p', '-n', ns, 'tier=web'])).stdout).toBe('configmap/p labeled\n');
    expect((await k(['patch', 'configmap', 'p', '-n', ns, '-p', '{"data":{"b":"2"}}'])).stdout).toBe('configmap/p patched\n');
    expect((await k(['patch', 'configmap', 'p', '-n', ns, '--type=merge', '-p', '{"data":{"c":"3"}}'])).code).toBe(0);
    expect((await k(['patch', 'configmap', 'p', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/data/a"}]'])).code).toBe(0);
    const cm = JSON.parse((await k(['get', 'configmap', 'p', '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout);
    expect(cm.data).toEqual({ b: '2', c: '3' });
    expect(cm.metadata.labels).toEqual({ tier: 'web' });
    // Managers come from the User-Agent (kubectl-label, kubectl-patch); kubectl-create owned only data.a, now removed.
    expect(cm.metadata.managedFields.map((m: { manager: string }) => m.manager)).toEqual(expect.arrayContaining(['kubectl-label', 'kubectl-patch']));
  });

  it('diffs server-side: exit 1 with a difference, 0 without, persisting nothing', async () => {
    const manifest = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: ${ns}}\ndata: {v: "${v}"}\n`;
    await k(['apply', '--server-side', '-f', '-'], manifest('1'));
    const changed = await k(['diff', '--server-side', '-f', '-'], manifest('2'));
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('+  v: "2"');
    expect((await k(['diff', '--server-side', '-f', '-'], manifest('1'))).code).toBe(0);
    expect(JSON.parse((await k(['get', 'cm', 'd', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ v: '1' });
  });

  it('deletes an object, and one held by a finalizer only once the finalizer is removed', async () => {
    await k(['create', 'configmap', 'gone', '-n', ns]);
    expect((await k(['delete', 'configmap', 'gone', '-n', ns])).stdout).toBe('configmap "gone" deleted\n');
    await k(['apply', '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, namespace: ${ns}, finalizers: [example.com/hold]}\n`);
    expect((await k(['delete', 'configmap', 'held', '-n', ns, '--wait=false'])).code).toBe(0);
    const held = JSON.parse((await k(['get', 'cm', 'held', '-n', ns, '-o', 'json'])).stdout);
    expect(held.metadata.deletionTimestamp).toBeDefined();
    // A second delete waits (list + watch) until the object is really gone: remove the finalizer once it watches.
    const waiting = c.kubectlStream(['delete', 'configmap', 'held', '-n', ns, '--timeout=15s', '--ignore-not-found', '-v=6']);
    try {
      await waiting.until((_out, err) => /configmaps\?.*watch=true/.test(err));
      await k(['patch', 'configmap', 'held', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      // It ends by itself once the object is gone (stopping it after the line was printed would race its exit).
      const done = await waiting.exit();
      expect(done.stdout).toContain('configmap "held" deleted');
      expect(done.code).toBe(0);
    } finally {
      await waiting.stop();
    }
    expect((await k(['get', 'cm', 'held', '-n', ns])).stderr).toContain('configmaps "held" not found');
  });

  it('watches with get -w, printing a row per event', async () => {
    await k(['create', 'configmap', 'w0', '-n', ns]);
    await k(['label', 'configmap', 'w0', '-n', ns, 'watch=me']);
    const watching = c.kubectlStream(['get', 'configmaps', '-n', ns, '-w', '-l', 'watch=me']);
    try {
      // The first row means kubectl has listed; it watches from that list's resourceVersion, so
      // every change made from here on reaches it however late its watch request arrives.
      await watching.until((out) => table(out).some((r) => r[0] === 'w0'));
      await k(['create', 'configmap', 'w', '-n', ns]);
      await k(['label', 'configmap', 'w', '-n', ns, 'watch=me']);
      await k(['annotate', 'configmap', 'w', '-n', ns, 'seen=yes']);
      const out = await watching.until((o) => table(o).filter((r) => r[0] === 'w').length >= 2);
      const rows = table(out);
      expect(rows[0]).toEqual(['NAME', 'DATA', 'AGE']);
      expect(rows.slice(1).map((r) => r[0])).toEqual(['w0', 'w', 'w']);
    } finally {
      await watching.stop();
    }
  });

  it('lists api-resources from discovery with short names and scope', async () => {
    const rows = table((await k(['api-resources'])).stdout);
    expect(rows[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    expect(rows).toContainEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    expect(rows).toContainEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  });

  it('creates a CRD, then a custom resource, and gets it with its printer columns', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
`;
    expect((await k(['apply', '-f', '-'], crd)).stdout).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n');
    expect(table((await k(['get', 'crd'])).stdout)[0]).toEqual(['NAME', 'CREATED AT']);
    const widget = (size: number) => `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: ${ns}}\nspec: {size: ${size}}\n`;
    expect((await k(['apply', '-f', '-'], widget(3))).stdout).toBe('widget.example.com/w1 created\n');
    expect((await k(['apply', '-f', '-'], widget(4))).stdout).toBe('widget.example.com/w1 configured\n');
    expect(table((await k(['get', 'wd', '-n', ns])).stdout)).toEqual([['NAME', 'SIZE'], ['w1', '4']]);
  });

  it('rejects unknown fields of a custom resource by default, and warns with --validate=warn', async () => {
    const widget = `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2, namespace: ${ns}}\nspec: {size: 1, colour: red}\n`;
    const strict = await k(['apply', '-f', '-'], widget);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('strict decoding error: unknown field "spec.colour"');
    const warned = await k(['apply', '--validate=warn', '-f', '-'], widget);
    expect(warned.stdout).toBe('widget.example.com/w2 created\n');
    expect(warned.stderr).toContain('Warning: unknown field "spec.colour"');
  });
});
