/**
 * `npm run bench -- apply [--n 500] [--repeat 3] [--rounds 10]`: one plan step whose batch holds N
 * ConfigMaps, applied to the simulated cluster by Baton's engine and, in the same run, by `kubectl apply
 * --server-side` of the same objects (after one unmeasured warm-up round each, `--repeat` alternating
 * rounds, medians); then the latency from an object becoming ready to the next
 * step starting (a framework readiness rule on a ConfigMap field that the bench flips).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createKubeClient } from '../src/kube/http-client.js';
import type { KubeClient } from '../src/kube/client.js';
import type { KubeObject } from '../src/kube/object.js';
import { MemoryCheckpointStore } from '../src/plans/checkpoint.js';
import { defaultHooks } from '../src/plans/defaults.js';
import { reconcile } from '../src/plans/reconcile.js';
import type { RenderedPlan, RenderedStep } from '../src/render/types.js';
import { numberArg } from './_args.js';
import { clusterProcess, median } from './_cluster.js';

const run$ = promisify(execFile);

function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'baton', 'app.kubernetes.io/instance': 'bench' } }, data };
}

function renderedPlan(namespace: string, steps: RenderedStep[]): RenderedPlan {
  return {
    instance: { name: 'bench', namespace },
    framework: { name: 'bench', version: '1.0.0', appVersion: '1' },
    plan: 'deploy',
    strategy: 'serial',
    phases: [{ name: 'main', strategy: 'serial', steps }],
    readiness: [{ apiVersion: 'v1', kind: 'ConfigMap', field: { path: 'data.ready', ready: ['yes'] } }],
    sensitiveParams: [],
  };
}

const desired = { frameworkVersion: '1.0.0', frameworkHash: 'h', values: {}, params: [], plans: ['deploy'] };

async function runPlan(client: KubeClient, namespace: string, steps: RenderedStep[], onStepStarted?: (step: string) => void): Promise<void> {
  const result = await reconcile({
    client,
    store: new MemoryCheckpointStore(),
    hooks: defaultHooks(),
    instance: { name: 'bench', namespace },
    framework: 'bench',
    desired,
    render: async () => renderedPlan(namespace, steps),
    onEvent: (e) => {
      if (e.type === 'step-started') onStepStarted?.(e.step);
    },
  });
  if (result.kind !== 'ran' || result.execution.outcome !== 'complete') throw new Error(`bench plan did not complete: ${JSON.stringify(result).slice(0, 500)}`);
}


export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = numberArg(args, 'n', 500);
  const rounds = numberArg(args, 'rounds', 10);
  const repeat = numberArg(args, 'repeat', 3);
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-apply-'));
  const server = await clusterProcess(join(dir, 'kubeconfig'));
  const cluster = { kubeconfigPath: join(dir, 'kubeconfig') };
  const client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  try {
    const objects = (ns: string): KubeObject[] => Array.from({ length: n }, (_, i) => configMap(ns, `cm-${String(i).padStart(4, '0')}`, { index: String(i), ready: 'yes' }));
    const kubectl = ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', join(dir, 'cache')];
    const baton = async (ns: string): Promise<number> => {
      const t = performance.now();
      await runPlan(client, ns, [{ name: 'all', timeoutSeconds: 600, actions: objects(ns).map((object) => ({ action: 'apply', object, task: 'all', template: 'cm.yaml.ejs', force: false })) }]);
      return performance.now() - t;
    };
    // kubectl: the same objects as one file, server-side apply (namespace created first, as Baton does).
    const kubectlApply = async (ns: string): Promise<number> => {
      const file = join(dir, `${ns}.yaml`);
      writeFileSync(file, objects(ns).map((o) => JSON.stringify(o)).join('\n---\n'));
      await run$('kubectl', [...kubectl, 'create', 'namespace', ns]);
      const t = performance.now();
      await run$('kubectl', [...kubectl, 'apply', '--server-side', '-f', file], { maxBuffer: 64 << 20 });
      return performance.now() - t;
    };
    // One unmeasured round each warms the server (JIT, discovery cache) so that neither side pays for
    // going first; then alternate rounds and take each side's median.
    await baton('bench-warm-baton');
    await kubectlApply('bench-warm-kubectl');
    const batonRuns: number[] = [];
    const kubectlRuns: number[] = [];
    for (let r = 0; r < repeat; r++) {
      batonRuns.push(await baton(`bench-baton-${r}`));
      kubectlRuns.push(await kubectlApply(`bench-kubectl-${r}`));
    }
    const batonMs = median(batonRuns);
    const kubectlMs = median(kubectlRuns);

    // Ready -> next step: the first step waits on a ConfigMap the bench marks ready at a known time.
    const latencies: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const ns = `bench-gate-${r}`;
      let readyAt = 0;
      let nextAt = 0;
      const gate = configMap(ns, 'gate', { ready: 'no' });
      const steps: RenderedStep[] = [
        { name: 'wait', timeoutSeconds: 60, actions: [{ action: 'apply', object: gate, task: 't', template: 't', force: false }] },
        { name: 'next', timeoutSeconds: 60, actions: [{ action: 'apply', object: configMap(ns, 'next', { ready: 'yes' }), task: 't', template: 't', force: false }] },
      ];
      const flip = setTimeout(() => {
        readyAt = performance.now();
        void client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'gate' }, { data: { ready: 'yes' } }, 'merge', { fieldManager: 'bench-controller' });
      }, 300);
      await runPlan(client, ns, steps, (step) => {
        if (step === 'next') nextAt = performance.now();
      });
      clearTimeout(flip);
      latencies.push(nextAt - readyAt);
    }
    latencies.sort((a, b) => a - b);
    const round = (x: number): number => Math.round(x * 10) / 10;
    return {
      objects: n,
      repeat,
      batonMs: round(batonMs),
      kubectlMs: round(kubectlMs),
      speedup: round(kubectlMs / batonMs),
      readyToNextStepMsP50: round(latencies[Math.floor(latencies.length / 2)] ?? 0),
      readyToNextStepMsMax: round(latencies.at(-1) ?? 0),
    };
  } finally {
    client.close();
    server.stdin?.end();
    await once(server, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The simulated API server in its own process, as a real one would be: Baton and kubectl are both
 * clients of it, and neither shares its event loop.
 */
