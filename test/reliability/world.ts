/**
 * What the reliability suites share: a framework whose plan has two phases and three steps with real
 * readiness waits (a Deployment the simulated controllers roll out), instance files for it, settling
 * checks, and the end-of-suite audit of an instance (history, checkpoint, live objects).
 */
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import { API, type AgentWorld } from '../sync/fixtures.js';
import { checkAgainstCheckpoint, checkHistory } from '../helpers/transitions.js';

export function relFramework(): Record<string, string> {
  const dir = 'frameworks/rel/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: rel', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }',
      '  - { name: app, kind: Apply, resources: [app.yaml.ejs] }',
      '  - { name: svc, kind: Apply, resources: [svc.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: config',
      '        steps:',
      '          - { name: config, tasks: [config] }',
      '      - name: app',
      '        steps:',
      '          - { name: app, tasks: [app] }',
      '          - { name: svc, tasks: [svc] }',
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n- { name: READY_MS, type: integer, default: 300 }\n',
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n',
    [`${dir}/templates/app.yaml.ejs`]: [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: <%= instance.name %>', 'spec:', '  replicas: 1',
      '  selector: { matchLabels: { app: <%= instance.name %> } }', '  template:', '    metadata:', '      labels: { app: <%= instance.name %> }',
      '      annotations: { sim.baton.dev/ready-delay-ms: "<%= params.READY_MS %>", value: <%= params.VALUE %> }',
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n'),
    [`${dir}/templates/svc.yaml.ejs`]: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: <%= instance.name %>\nspec:\n  selector: { app: <%= instance.name %> }\n  ports: [{ port: 80 }]\n',
  };
}

export function relInstance(value: string, readyMs = 300): string {
  return `${API}\nkind: Instance\nframework: rel\nversion: 1.0.0\nparams:\n  VALUE: ${JSON.stringify(value)}\n  READY_MS: ${readyMs}\n`;
}

export interface Audit {
  client: HttpKubeClient;
  checkpoint(namespace: string, name: string): Promise<Checkpoint | undefined>;
  /** The live ConfigMap's value and the checkpoint's plan state: settled at `value` and COMPLETE. */
  settled(namespace: string, name: string, value: string): Promise<boolean>;
  /** Every defect of the audit record and the cluster for these instances (`ns/name` -> final value). */
  defects(expected: ReadonlyMap<string, string>): Promise<{ defects: string[]; runs: number; cleanRuns: number }>;
  close(): void;
}

export async function audit(world: AgentWorld): Promise<Audit> {
  const client = await createKubeClient({ url: world.cluster.url });
  const store = new ConfigMapCheckpointStore(client);
  const checkpoint = async (namespace: string, name: string): Promise<Checkpoint | undefined> => (await store.load({ namespace, name }))?.checkpoint;
  const value = async (namespace: string, name: string): Promise<string | undefined> => {
    const data = (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name }))?.['data'];
    return (data as Record<string, string> | undefined)?.value;
  };
  return {
    client,
    checkpoint,
    // A read failing under injected faults is "not yet".
    settled: async (namespace, name, want) => {
      try {
        return (await value(namespace, name)) === want && (await checkpoint(namespace, name))?.active?.state.status === 'COMPLETE';
      } catch {
        return false;
      }
    },
    async defects(expected) {
      const check = checkHistory(world.sandbox.env, world.origin, { instances: [...expected.keys()] });
      const defects = [...check.defects];
      const runs = new Set(check.runs.keys());
      for (const [id, want] of expected) {
        const [namespace = '', name = ''] = id.split('/');
        const cp = await checkpoint(namespace, name);
        for (const run of [...(cp?.active ? [cp.active] : []), ...(cp?.history ?? [])]) if (run.state.status !== 'PENDING') runs.add(run.id);
        defects.push(...checkAgainstCheckpoint(check, cp));
        const got = await value(namespace, name);
        if (got !== want) defects.push(`${id}: live ConfigMap value ${String(got)}, expected ${want}`);
      }
      // A run is clean when no defect names it.
      const cleanRuns = [...runs].filter((id) => !defects.some((d) => d.includes(id))).length;
      return { defects, runs: runs.size, cleanRuns };
    },
    close: () => client.close(),
  };
}
