/**
 * `npm run bench -- store [--n N]`: the simulated API store in process, without HTTP. Figures: CPU
 * microseconds per server-side apply of a Deployment (create and no-op re-apply and changing
 * re-apply), per ConfigMap create, per list of a 100-object namespace, per list of one object by name
 * (fieldSelector metadata.name=) in a namespace of N/10, and heap bytes per stored
 * object at N ConfigMaps (default 10,000).
 */
import { Store } from '../src/cluster/store/index.js';
import { numberArg } from './_args.js';

function cpuMicros(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

function deployment(name: string, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: name } },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] }] } },
    },
  };
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 10_000);
  const applies = Math.min(2000, n);
  const gc = (globalThis as { gc?: () => void }).gc;
  const store = new Store({ watchWindow: 1000 });
  const deploy = store.registry.lookup('apps', 'v1', 'deployments')!;
  const cm = store.registry.lookup('', 'v1', 'configmaps')!;
  const nsType = store.registry.lookup('', 'v1', 'namespaces')!;
  for (let i = 0; i < 10; i++) store.create(nsType, undefined, { metadata: { name: `ns-${i}` } });

  const applyCreate = cpuMicros(() => {
    for (let i = 0; i < applies; i++) store.patch(deploy, 'default', `d-${i}`, 'apply', deployment(`d-${i}`, 1), { fieldManager: 'bench' });
  }) / applies;
  const applyNoop = cpuMicros(() => {
    for (let i = 0; i < applies; i++) store.patch(deploy, 'default', `d-${i}`, 'apply', deployment(`d-${i}`, 1), { fieldManager: 'bench' });
  }) / applies;
  const applyChange = cpuMicros(() => {
    for (let i = 0; i < applies; i++) store.patch(deploy, 'default', `d-${i}`, 'apply', deployment(`d-${i}`, 2), { fieldManager: 'bench' });
  }) / applies;

  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const createCm = cpuMicros(() => {
    for (let i = 0; i < n; i++) store.create(cm, `ns-${i % 10}`, { metadata: { name: `cm-${i}`, labels: { i: String(i % 7) } }, data: { key: `value-${i}` } });
  }) / n;
  gc?.();
  const heapPerObject = (process.memoryUsage().heapUsed - heapBefore) / n;
  const listNamespace = cpuMicros(() => {
    for (let i = 0; i < 100; i++) store.list(cm, 'ns-3', { limit: 100 });
  }) / 100;
  const listAll = cpuMicros(() => store.list(cm, undefined, {}));
  // One object by name in a namespace of N/10, as a readiness gate lists it (fieldSelector metadata.name=).
  const listByName = cpuMicros(() => {
    for (let i = 0; i < 100; i++) store.list(cm, 'ns-3', { fieldSelector: `metadata.name=cm-${i * 10 + 3}` });
  }) / 100;
  await store.close();
  return {
    objects: n,
    cpuMicrosPerApplyCreate: Math.round(applyCreate),
    cpuMicrosPerApplyNoop: Math.round(applyNoop),
    cpuMicrosPerApplyChange: Math.round(applyChange),
    cpuMicrosPerConfigMapCreate: Math.round(createCm),
    cpuMicrosPerListNamespacePage: Math.round(listNamespace),
    cpuMicrosListAll: Math.round(listAll),
    cpuMicrosPerListByName: Math.round(listByName),
    heapBytesPerObject: gc ? Math.round(heapPerObject) : 'run with node --expose-gc for heap figures',
  };
}
