import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { gitSandbox, workClone, type GitSandbox, type WorkClone } from '../helpers/git-server.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import type { ClusterOptions } from '../../src/cluster/index.js';
import { GitMirror } from '../../src/git/index.js';
import type { KubeClient } from '../../src/kube/client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { Renderer } from '../../src/render/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { Agent, type AgentOptions, type PassReport } from '../../src/sync/agent.js';

/** Inline GitOps repository content for agent tests: a tiny framework whose objects are ready at once. */
export const API = 'apiVersion: baton.dev/v1alpha1';

export function webFramework(version = '1.0.0', extra = ''): Record<string, string> {
  const dir = `frameworks/web/${version}`;
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: web', `version: ${version}`, 'appVersion: "2.4"',
      'tasks:',
      '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }',
      '  - { name: marker, kind: Apply, resources: [marker.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: main',
      '        steps:',
      '          - { name: main, tasks: [main] }',
      '  backup:',
      '    args: [{ name: LABEL, type: string }]',
      '    phases:',
      '      - name: snapshot',
      '        steps:',
      '          - { name: marker, tasks: [marker] }',
      extra,
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n- { name: REPLICAS, type: integer, default: 1, minimum: 1 }\n- { name: PASSWORD, type: string, default: hunter2-secret, sensitive: true }\n',
    [`${dir}/templates/main.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n  replicas: <%= String(params.REPLICAS) %>\n',
    [`${dir}/templates/marker.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-backup" %>\ndata:\n  label: <%= plan.args.LABEL || "none" %>\n',
  };
}

/**
 * A framework whose deploy plan waits: phase `one` applies a ConfigMap, phase `two` a Deployment of
 * 0 replicas that no controller observes (the test cluster runs none), so the plan waits on its gate
 * until the test calls `releaseGate`.
 */
export function gatedFramework(): Record<string, string> {
  const dir = 'frameworks/gated/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: gated', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }',
      '  - { name: gate, kind: Apply, resources: [gate.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: one',
      '        steps:',
      '          - { name: config, tasks: [config] }',
      '      - name: two',
      '        steps:',
      '          - { name: gate, tasks: [gate] }',
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n',
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n',
    [`${dir}/templates/gate.yaml.ejs`]: [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: <%= "gate-" + instance.name %>', 'spec:', '  replicas: 0',
      '  selector: { matchLabels: { app: <%= instance.name %> } }', '  template:', '    metadata:', '      labels: { app: <%= instance.name %> }',
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n'),
  };
}

/** Marks a `gatedFramework` Deployment as observed by its (absent) controller: its gate then passes. */
export async function releaseGate(client: KubeClient, namespace: string, name: string): Promise<void> {
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
  for (;;) {
    const live = await client.get(ref);
    if (live !== undefined) {
      await client.patch(ref, { status: { observedGeneration: live.metadata.generation ?? 1 } }, 'merge', { subresource: 'status' });
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function instance(params: Record<string, string | number> = {}, version = '1.0.0'): string {
  const lines = [API, 'kind: Instance', 'framework: web', `version: ${version}`];
  const entries = Object.entries(params);
  if (entries.length > 0) lines.push('params:', ...entries.map(([k, v]) => `  ${k}: ${typeof v === 'number' ? v : JSON.stringify(v)}`));
  return `${lines.join('\n')}\n`;
}

/**
 * The world of an agent end-to-end test: a git sandbox, a simulated cluster, a bare origin and a user's
 * work clone holding the `web` framework (not yet committed, so tests add their instances first).
 */
export interface AgentWorld {
  sandbox: GitSandbox;
  cluster: TestCluster;
  origin: string;
  user: WorkClone;
  stop(): Promise<void>;
}

/** The agent's bare clone in `dir` under the sandbox, fetching from `origin`. */
export function mirrorOf(where: { sandbox: GitSandbox; origin: string }, dir = 'agent'): GitMirror {
  return new GitMirror({ dir: join(where.sandbox.dir, dir), remote: { url: where.origin, auth: { kind: 'none' } }, env: where.sandbox.env });
}

/** An agent as the tests run it: branch main, the real engine hooks, checkpoints in the cluster, short coalescing. */
export function testAgent(mirror: GitMirror, client: KubeClient, renderer: Renderer, extra: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    mirror, branch: 'main', client, checkpoints: new ConfigMapCheckpointStore(client), hooks: defaultHooks(), renderer,
    author: { name: 'Baton', email: 'baton@example.com' }, coalesceMs: 10, ...extra,
  });
}

export async function agentWorld(clusterOptions: ClusterOptions = {}): Promise<AgentWorld> {
  const sandbox = gitSandbox();
  const cluster = await startTestCluster(clusterOptions);
  const origin = join(sandbox.dir, 'origin.git');
  execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
  const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
  for (const [path, text] of Object.entries(webFramework())) user.write(path, text);
  return {
    sandbox,
    cluster,
    origin,
    user,
    stop: async () => {
      await cluster.stop();
      sandbox.cleanup();
    },
  };
}

/** A pass's outcome per instance: `{ 'ns/name': 'complete' }`. */
export function outcomeKinds(r: PassReport): Record<string, string> {
  return Object.fromEntries(r.reports.map((x) => [x.instance, x.outcome.kind]));
}

/** A pass's outcomes as lines: `ns/name complete deploy`. */
export function outcomeLines(r: PassReport): string[] {
  return r.reports.map((x) => `${x.instance} ${x.outcome.kind}${'plan' in x.outcome ? ` ${x.outcome.plan}` : ''}`);
}

/** The node a pod is scheduled on ('' when none). */
export function nodeOf(p: KubeObject | undefined): string {
  return String((p?.['spec'] as { nodeName?: string } | undefined)?.nodeName ?? '');
}

/** Whether a pod reports Ready=True. */
export function podReady(p: KubeObject | undefined): boolean {
  return ((p?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
