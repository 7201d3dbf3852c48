/**
 * `npm run bench -- drift [--n 1000] [--repeat 3] [--changed 0.01]`: drift detection at scale.
 * N instances (one namespace each; a ConfigMap, a Secret, a Service, a PodDisruptionBudget and a
 * Deployment apiece, plus the checkpoint) on the simulated cluster in its own process, brought to
 * their desired state with Baton's field manager; then a fraction of the objects is changed out of
 * band (deleted, scaled by another field manager, edited). Measured in the same run, alternating,
 * after one unmeasured round of each, medians of `--repeat`:
 * - one full drift sweep (renders cached, as in the agent after its first sweep) and its API requests;
 * - `kubectl get` of the same objects (the same kinds across all namespaces by Baton's label, as JSON);
 * - the time from a sweep to every drifted object repaired (sweep, repairs at the agent's
 *   concurrency, a sweep that finds nothing);
 * - the peak memory of this process (the simulator runs in its own).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createKubeClient } from '../src/kube/http-client.js';
import type { KubeObject } from '../src/kube/object.js';
import { refOf } from '../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../src/plans/checkpoint-configmap.js';
import type { Checkpoint } from '../src/plans/checkpoint.js';
import { defaultHooks } from '../src/plans/defaults.js';
import { forEachLimited } from '../src/plans/pool.js';
import type { PlanRun } from '../src/plans/state.js';
import { standardLabels } from '../src/render/labels.js';
import type { BatchAction, RenderedPlan } from '../src/render/types.js';
import { desiredSetOf, repair, sweep, type DesiredSet, type SweepInstance, type SweepReport } from '../src/drift/index.js';
import { numberArg } from './_args.js';
import { clusterProcess, median } from './_cluster.js';

const run$ = promisify(execFile);
const KINDS = 'configmaps,secrets,services,poddisruptionbudgets,deployments';

function objectsOf(namespace: string, name: string): KubeObject[] {
  const labels = standardLabels('bench', name, '1.0.0');
  const annotations = { 'baton.dev/framework-version': '1.0.0', 'baton.dev/plan': 'deploy', 'baton.dev/phase': 'main', 'baton.dev/step': 'app' };
  const meta = (n: string): KubeObject['metadata'] => ({ name: n, namespace, labels, annotations });
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(`${name}-config`), data: { 'app.conf': `listen 8080\nname ${name}\n`, mode: 'production' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: meta(`${name}-auth`), stringData: { password: `pw-${name}` } },
    { apiVersion: 'v1', kind: 'Service', metadata: meta(name), spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta(name), spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(name),
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } } },
    },
  ];
}

function planOf(namespace: string, name: string, objects: KubeObject[]): RenderedPlan {
  const actions: BatchAction[] = objects.map((object) => ({ action: 'apply', object, task: 'main', template: 'main.yaml.ejs', force: false }));
  return { instance: { namespace, name }, framework: { name: 'bench', version: '1.0.0', appVersion: '1' }, plan: 'deploy', strategy: 'serial', phases: [{ name: 'main', strategy: 'serial', steps: [{ name: 'app', timeoutSeconds: 120, actions }] }], readiness: [], sensitiveParams: [] };
}

/** The checkpoint a completed deploy leaves: applied = target, inventory of the objects. */
function checkpointOf(namespace: string, name: string, objects: KubeObject[], values: Record<string, string>): Checkpoint {
  const at = new Date().toISOString();
  const run: PlanRun = { id: `run-${name}`, plan: 'deploy', reason: 'new instance', args: {}, frameworkVersion: '1.0.0', strategy: 'serial', state: { status: 'COMPLETE', startedAt: at, finishedAt: at, message: 'plan complete' }, phases: [] };
  const state = { frameworkVersion: '1.0.0', frameworkHash: 'h', values };
  return {
    format: 1, instance: { namespace, name }, framework: 'bench',
    applied: { ...state, at, plan: 'deploy', runId: run.id }, target: { ...state, plan: 'deploy', runId: run.id, since: at },
    active: run, history: [], handledRequests: [],
    inventory: objects.map((o) => ({ ...refOf(o), plan: 'deploy' })),
  };
}


export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 1000);
  const repeat = numberArg(args, 'repeat', 3);
  const fraction = numberArg(args, 'changed', 0.01);
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-drift-'));
  const kubeconfig = join(dir, 'kubeconfig');
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 50);
  const server = await clusterProcess(kubeconfig);
  const client = await createKubeClient({ kubeconfigPath: kubeconfig });
  try {
    const hooks = defaultHooks();
    const store = new ConfigMapCheckpointStore(client);
    const instances = Array.from({ length: n }, (_, i) => {
      const name = `app${String(i).padStart(4, '0')}`;
      const namespace = `drift-${String(i).padStart(4, '0')}`;
      const objects = objectsOf(namespace, name);
      return { key: { namespace, name }, objects, plan: planOf(namespace, name, objects), values: { NAME: JSON.stringify(name) } };
    });
    // Brought to the desired state with Baton's field manager (what a deploy applies), and checkpointed.
    const t0 = performance.now();
    await forEachLimited(instances, 32, async (i) => {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: i.key.namespace } });
      for (const o of i.objects) await client.apply(o, { fieldManager: 'baton', force: true });
      await store.save(checkpointOf(i.key.namespace, i.key.name, i.objects, i.values), undefined);
    });
    const setupSeconds = (performance.now() - t0) / 1000;
    const desiredSets = new Map<string, DesiredSet>();
    for (const i of instances) {
      desiredSets.set(`${i.key.namespace}/${i.key.name}`, await desiredSetOf({ desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { NAME: i.key.name }, params: [{ name: 'NAME' }], plans: ['deploy'] }, render: async () => i.plan }));
    }
    const swept: SweepInstance[] = instances.map((i) => ({ key: i.key, policy: 'repair', desired: async () => desiredSets.get(`${i.key.namespace}/${i.key.name}`) as DesiredSet }));
    const oneSweep = (): Promise<SweepReport> => sweep({ client, hooks, instances: swept });

    // 1% of the objects changed out of band: a third deleted, a third scaled or edited by another manager, a third with a label removed.
    const all = instances.flatMap((i) => i.objects);
    const changed = all.filter((_, index) => index % Math.round(1 / fraction) === 0);
    await forEachLimited(changed.map((o, k) => ({ o, k })), 16, async ({ o, k }) => {
      const ref = refOf(o);
      if (k % 3 === 0) await client.delete(ref);
      else if (k % 3 === 1) await client.patch(ref, o.kind === 'Deployment' ? { spec: { replicas: 5 } } : o.kind === 'Secret' ? { stringData: { password: 'changed' } } : { metadata: { annotations: { 'baton.dev/step': 'edited' } } }, 'merge', { fieldManager: 'kubectl-edit' });
      else await client.patch(ref, { metadata: { labels: { 'app.kubernetes.io/name': null } } }, 'merge', { fieldManager: 'kubectl-label' });
    });

    const kubectlArgs = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', KINDS, '-A', '-l', 'app.kubernetes.io/managed-by=baton', '-o', 'json'];
    const kubectlOnce = async (): Promise<number> => {
      const t = performance.now();
      await run$('kubectl', kubectlArgs, { maxBuffer: 1 << 30, env: { ...process.env, HOME: dir } });
      return performance.now() - t;
    };
    const sweepOnce = async (): Promise<{ ms: number; report: SweepReport }> => {
      const t = performance.now();
      const report = await oneSweep();
      return { ms: performance.now() - t, report };
    };
    // One unmeasured round each (discovery caches, JIT), then alternating rounds.
    await kubectlOnce();
    const warm = await sweepOnce();
    const sweeps: number[] = [];
    const gets: number[] = [];
    let last = warm.report;
    for (let r = 0; r < repeat; r++) {
      gets.push(await kubectlOnce());
      const s = await sweepOnce();
      sweeps.push(s.ms);
      last = s.report;
    }
    const drifted = last.instances.reduce((sum, d) => sum + d.objects.length, 0);
    const cold = await (async () => {
      const t = performance.now();
      await sweep({ client, hooks, instances: instances.map((i) => ({ key: i.key, policy: 'repair', desired: () => desiredSetOf({ desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { NAME: i.key.name }, params: [{ name: 'NAME' }], plans: ['deploy'] }, render: async () => i.plan }) })) });
      return performance.now() - t;
    })();

    // From a sweep to every drifted object repaired (repairs at the agent's default concurrency, 4).
    const tRepair = performance.now();
    const found = await oneSweep();
    const toRepair = found.instances.filter((d) => d.objects.length > 0);
    const failures: string[] = [];
    await forEachLimited(toRepair, 4, async (d) => {
      const r = await repair({ client, hooks, store, instance: d.instance, drifted: d.objects, desired: desiredSets.get(`${d.instance.namespace}/${d.instance.name}`) as DesiredSet, frameworkVersion: '1.0.0' });
      if (r.kind !== 'complete') failures.push(`${d.instance.namespace}/${d.instance.name}: ${r.kind}`);
    });
    const after = await oneSweep();
    const repairSeconds = (performance.now() - tRepair) / 1000;
    const left = after.instances.reduce((sum, d) => sum + d.objects.length, 0);
    if (left > 0 || failures.length > 0) throw new Error(`repair left ${left} drifted objects; failures: ${failures.slice(0, 5).join('; ')}`);

    const sweepMs = median(sweeps);
    const kubectlGetMs = median(gets);
    return {
      instances: n,
      objects: all.length + n,
      changedOutOfBand: changed.length,
      driftedFound: drifted,
      sweepMs: Math.round(sweepMs),
      coldSweepMs: Math.round(cold),
      kubectlGetMs: Math.round(kubectlGetMs),
      sweepVsKubectl: Number((sweepMs / kubectlGetMs).toFixed(2)),
      requestsPerSweep: last.stats.requests,
      listsPerSweep: last.stats.lists,
      dryRunsPerSweep: last.stats.dryRuns,
      repairSeconds: Number(repairSeconds.toFixed(2)),
      instancesRepaired: toRepair.length,
      peakRssMiB: Math.round(peakRss / (1 << 20)),
      setupSeconds: Number(setupSeconds.toFixed(1)),
      sweepsMs: sweeps.map(Math.round),
      kubectlGetsMs: gets.map(Math.round),
    };
  } finally {
    clearInterval(sampler);
    client.close();
    server.stdin?.end();
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

