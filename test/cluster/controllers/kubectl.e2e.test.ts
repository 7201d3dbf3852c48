/**
 * Acceptance: the simulated workloads as kubectl sees them, end to end over HTTP (small delays).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kubectlBinaries, startTestCluster, type TestCluster } from '../../helpers/cluster.js';
import type { Loose } from './harness.js';

// Many kubectl runs per test: on two shared cores beside other end-to-end files they can take a while.
vi.setConfig({ testTimeout: 120_000 });

// The versioned binary directly: the dispatcher on the PATH adds a process and a /version call per run.
const bin = kubectlBinaries()?.newest ?? 'kubectl';

let c: TestCluster;
let nsCounter = 0;

beforeAll(async () => {
  c = await startTestCluster({ controllers: true, nodes: 2, timing: { podStartDelayMs: 20, readyDelayMs: 40 } });
});
afterAll(async () => {
  await c.stop();
});

async function ok(...args: string[]): Promise<string> {
  const r = await c.kubectl(args, { bin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

async function namespace(): Promise<string> {
  const ns = `t${++nsCounter}`;
  await ok('create', 'namespace', ns);
  return ns;
}

async function apply(ns: string, yaml: string): Promise<void> {
  const r = await c.kubectl(['apply', '-n', ns, '-f', '-'], { input: yaml, bin });
  if (r.code !== 0) throw new Error(`apply failed: ${r.stderr}`);
}

/**
 * Polls `check` until it holds. The deadline only catches a hang (each poll is a kubectl process, and
 * on two loaded cores a controller's next step can take seconds): its message says what was last seen.
 */
async function until(check: () => Promise<boolean>, what: string, seen: () => string = () => ''): Promise<void> {
  const timeoutMs = 60_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen() || 'nothing'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const jsonOf = async (...args: string[]): Promise<{ items: Record<string, Loose>[] } & Record<string, Loose>> => JSON.parse(await ok(...args, '-o', 'json')) as never;

describe('kubectl against the simulated workloads', () => {
  it('GIVEN a Deployment WHEN kubectl waits, sets an image, restarts and scales THEN every rollout is observed and completes', async () => {
    const ns = await namespace();
    await ok('create', 'deployment', 'web', '-n', ns, '--image=nginx:1', '--replicas=3');
    expect(await ok('wait', '-n', ns, '--for=condition=Available', 'deployment/web', '--timeout=20s')).toContain('condition met');
    expect(await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s')).toContain('successfully rolled out');

    await ok('set', 'image', '-n', ns, 'deployment/web', 'nginx=nginx:2');
    const progress = await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s');
    expect(progress).toMatch(/Waiting for deployment "web" rollout to finish/);
    expect(progress).toContain('successfully rolled out');
    const pods = await jsonOf('get', 'pods', '-n', ns);
    expect(pods.items.map((p) => String(p.spec.containers[0].image))).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);

    await ok('rollout', 'restart', '-n', ns, 'deployment/web');
    await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s');
    expect(await ok('rollout', 'history', '-n', ns, 'deployment/web')).toMatch(/1\s+<none>\n2\s+<none>\n3\s+<none>/);

    await ok('rollout', 'undo', '-n', ns, 'deployment/web');
    await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s');
    expect((await jsonOf('get', 'rs', '-n', ns)).items).toHaveLength(3);

    for (const replicas of [5, 1]) {
      await ok('scale', '-n', ns, 'deployment/web', `--replicas=${replicas}`);
      await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s');
      let pods: string[] = [];
      await until(async () => {
        pods = (await jsonOf('get', 'pods', '-n', ns)).items.map((p) => `${p.metadata.name}${p.metadata.deletionTimestamp ? ' (terminating)' : ''}`);
        return pods.length === replicas;
      }, `${replicas} pods`, () => pods.join(', '));
    }
  });

  it('GIVEN a StatefulSet and a DaemonSet THEN kubectl rollout status follows them to completion', async () => {
    const ns = await namespace();
    await apply(ns, `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db }
spec:
  replicas: 3
  serviceName: db
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec: { containers: [{ name: main, image: "redis:7" }] }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec: { containers: [{ name: main, image: "agent:1" }] }
`);
    expect(await ok('rollout', 'status', '-n', ns, 'statefulset/db', '--timeout=30s')).toMatch(/partitioned roll out complete|rolling update complete 3 pods/);
    expect(await ok('rollout', 'status', '-n', ns, 'daemonset/agent', '--timeout=30s')).toContain('successfully rolled out');
    await ok('set', 'image', '-n', ns, 'daemonset/agent', 'main=agent:2');
    await ok('rollout', 'status', '-n', ns, 'daemonset/agent', '--timeout=30s');
    expect(await ok('rollout', 'history', '-n', ns, 'daemonset/agent')).toMatch(/1\s+<none>\n2\s+<none>/);
    await ok('rollout', 'undo', '-n', ns, 'daemonset/agent');
    await ok('rollout', 'status', '-n', ns, 'daemonset/agent', '--timeout=30s');
    let images: string[] = [];
    await until(async () => {
      images = (await jsonOf('get', 'pods', '-n', ns, '-l', 'app=agent')).items.map((p) => `${p.metadata.name}=${p.spec.containers[0].image}`);
      return images.every((i) => i.endsWith('=agent:1'));
    }, 'agent:1 again', () => images.join(', '));
    const pvcs = await jsonOf('get', 'pvc', '-n', ns);
    expect(pvcs.items.map((p) => `${p.metadata.name}:${p.status.phase}`).sort()).toEqual(['data-db-0:Bound', 'data-db-1:Bound', 'data-db-2:Bound']);
    await ok('rollout', 'restart', '-n', ns, 'statefulset/db');
    // The API server defaults partition 0, so kubectl reports a partitioned roll out, as against a real cluster.
    expect(await ok('rollout', 'status', '-n', ns, 'statefulset/db', '--timeout=30s')).toMatch(/partitioned roll out complete: 3 new pods|rolling update complete 3 pods/);
  });

  it('GIVEN kubectl get pods -w THEN it shows the pods change phase; kubectl logs shows the simulated output', async () => {
    const ns = await namespace();
    const watching = c.kubectlStream(['get', 'pods', '-n', ns, '-w', '-v=6'], { bin });
    try {
      // Once kubectl logs its watch request it has listed, and it watches from that list's version.
      await watching.until((_out, err) => /pods\?.*watch=true/.test(err));
      await apply(ns, `
apiVersion: v1
kind: Pod
metadata: { name: solo, annotations: { sim.baton.dev/start-delay-ms: "300", sim.baton.dev/ready-delay-ms: "300" } }
spec: { containers: [{ name: main, image: "nginx:1" }] }
`);
      const out = await watching.until((o) => /solo\s+1\/1\s+Running/.test(o));
      expect(out).toMatch(/solo\s+0\/1\s+(Pending|ContainerCreating)/);
      expect(out).toMatch(/solo\s+0\/1\s+Running/);
    } finally {
      await watching.stop();
    }
    const logs = await c.kubectl(['logs', '-n', ns, 'solo'], { bin });
    expect(logs.stdout).toBe('[baton-sim] container main started (image nginx:1)\n');
  });

  it('GIVEN workloads asking for each failure THEN the API shows them the way a real cluster does', async () => {
    const ns = await namespace();
    const pod = (name: string, fail: string | undefined, image = 'nginx:1', restartPolicy = 'Always'): string => `
apiVersion: v1
kind: Pod
metadata: { name: ${name}${fail ? `, annotations: { sim.baton.dev/fail: ${fail} }` : ''} }
spec: { restartPolicy: ${restartPolicy}, containers: [{ name: main, image: "${image}" }] }
---`;
    await apply(ns, [
      pod('bad-image', undefined, 'nginx:does-not-exist'),
      pod('pull', 'image-pull'),
      pod('crash', 'crash-loop'),
      pod('slow', 'never-ready'),
      pod('stuck', 'pending'),
      `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: claim, annotations: { sim.baton.dev/fail: pending } }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: batch/v1
kind: Job
metadata: { name: boom, annotations: { sim.baton.dev/fail: job-fail } }
spec:
  backoffLimit: 1
  template: { spec: { restartPolicy: Never, containers: [{ name: main, image: busybox }] } }
`,
    ].join('\n'));
    expect(await ok('wait', '-n', ns, '--for=condition=Failed', 'job/boom', '--timeout=120s')).toContain('condition met');
    let restarts = 0;
    await until(async () => {
      const crash = (await jsonOf('get', 'pod', 'crash', '-n', ns)) as Record<string, Loose>;
      restarts = crash.status?.containerStatuses?.[0]?.restartCount ?? 0;
      return restarts >= 2;
    }, 'crash-loop restarts', () => `restartCount ${restarts}`);

    const byName = new Map((await jsonOf('get', 'pods', '-n', ns)).items.map((p) => [p.metadata.name as string, p]));
    const waiting = (name: string): unknown => byName.get(name)?.status.containerStatuses?.[0]?.state?.waiting?.reason;
    expect(waiting('bad-image')).toBe('ImagePullBackOff');
    expect(waiting('pull')).toBe('ImagePullBackOff');
    expect(byName.get('pull')?.status.phase).toBe('Pending');
    expect(waiting('crash')).toBe('CrashLoopBackOff');
    expect(byName.get('crash')?.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(byName.get('slow')?.status).toMatchObject({ phase: 'Running', containerStatuses: [{ ready: false, started: true }] });
    expect(byName.get('stuck')?.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' })]);
    expect((await jsonOf('get', 'pvc', 'claim', '-n', ns)).status.phase).toBe('Pending');
    const job = (await jsonOf('get', 'job', 'boom', '-n', ns)) as Record<string, Loose>;
    expect(job.status.failed).toBe(2);

    const table = await ok('get', 'pods', '-n', ns);
    expect(table).toMatch(/crash\s+0\/1\s+CrashLoopBackOff\s+[2-9]/);
    expect(table).toMatch(/bad-image\s+0\/1\s+ImagePullBackOff/);

    const reasons = new Set((await jsonOf('get', 'events', '-n', ns)).items.map((e) => `${e.involvedObject.name}:${e.reason}`));
    for (const expected of ['bad-image:Failed', 'bad-image:BackOff', 'crash:BackOff', 'slow:Unhealthy', 'stuck:FailedScheduling', 'claim:ProvisioningFailed', 'boom:BackoffLimitExceeded', 'slow:Started']) {
      expect(reasons).toContain(expected);
    }
  });

  it('GIVEN a Deployment and a namespace WHEN deleted THEN what they own goes with them', async () => {
    const ns = await namespace();
    await ok('create', 'deployment', 'web', '-n', ns, '--image=nginx:1', '--replicas=2');
    await ok('rollout', 'status', '-n', ns, 'deployment/web', '--timeout=20s');
    await ok('delete', '-n', ns, 'deployment/web');
    let left: string[] = [];
    const cascaded = async (): Promise<boolean> => {
      left = (await jsonOf('get', 'rs,pods', '-n', ns)).items.map((o) => `${o.kind}/${o.metadata.name} owners=${JSON.stringify(o.metadata.ownerReferences ?? [])}`);
      return left.length === 0;
    };
    // On failure the message names what stayed behind (a dependent of an owner already gone, once).
    await until(cascaded, 'cascade', () => left.join(', '));

    await ok('create', 'deployment', 'api', '-n', ns, '--image=nginx:1', '--replicas=2');
    await apply(ns, 'apiVersion: v1\nkind: Service\nmetadata: { name: api }\nspec: { selector: { app: api }, ports: [{ port: 80, targetPort: 8080 }] }\n');
    await ok('rollout', 'status', '-n', ns, 'deployment/api', '--timeout=20s');
    await ok('delete', 'namespace', ns, '--timeout=20s');
    await until(async () => (await c.kubectl(['get', 'namespace', ns], { bin })).code !== 0, 'namespace gone');
    expect((await jsonOf('get', 'pods,rs,deploy,svc', '-A')).items.filter((o) => o.metadata.namespace === ns)).toEqual([]);
  });
});
