/**
 * Issue #13, the framework plans of recovery and decommission, end to end with the agent on the
 * simulated cluster (three nodes): `recovery: { permanent: plan }` runs the framework's `recovery`
 * plan with POD=<pod> when a node fails under a pod; `limits.maxActionsPerHour` counts those plan
 * runs (a second pod broken within the hour is held); `decommission: { plan }` runs the framework's
 * `decommission` plan once per pod a scale-down removed, then its claims are deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { Agent } from '../../src/sync/agent.js';
import { startAgentHarness, WORKLOAD_CLUSTER, type AgentHarness } from '../helpers/agent-harness.js';
import { checkHistory } from '../helpers/transitions.js';
import { API, type AgentWorld, outcomeLines, nodeOf, podReady } from '../sync/fixtures.js';

const dir = 'frameworks/quorum/1.0.0';
function quorumFramework(): Record<string, string> {
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: quorum', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      '  - { name: servers, kind: Apply, resources: [statefulset.yaml.ejs] }',
      '  - { name: note-recovery, kind: Apply, resources: [recovered.yaml.ejs] }',
      '  - { name: note-decommission, kind: Apply, resources: [decommissioned.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases: [{ name: main, steps: [{ name: servers, tasks: [servers] }] }]',
      '  update:',
      '    phases: [{ name: main, steps: [{ name: servers, tasks: [servers] }] }]',
      '  recovery:',
      '    args: [{ name: POD, type: string, required: true }]',
      '    phases: [{ name: main, steps: [{ name: note, tasks: [note-recovery] }] }]',
      '  decommission:',
      '    args: [{ name: POD, type: string, required: true }]',
      '    phases: [{ name: main, steps: [{ name: note, tasks: [note-decommission] }] }]',
      'recovery:',
      '  permanentTimeout: 1s',
      '  permanent: plan',
      '  limits: { podInterval: 1s, maxActionsPerHour: 1, maxPods: 1 }',
      'decommission:',
      '  volumes: delete',
      '  plan: decommission',
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: REPLICAS, type: integer, default: 3 }\n',
    [`${dir}/templates/statefulset.yaml.ejs`]: [
      'apiVersion: apps/v1', 'kind: StatefulSet', 'metadata:', '  name: <%= instance.name %>', 'spec:', '  replicas: <%= params.REPLICAS %>',
      '  serviceName: <%= instance.name %>', '  selector: { matchLabels: { app: <%= instance.name %> } }',
      '  template:', '    metadata: { labels: { app: <%= instance.name %> } }', '    spec: { containers: [{ name: db, image: "redis:7" }] }',
      '  volumeClaimTemplates:', '    - metadata: { name: data }', '      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }', '',
    ].join('\n'),
    [`${dir}/templates/recovered.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= "recovered-" + plan.args.POD %>\ndata: { pod: "<%= plan.args.POD %>" }\n',
    [`${dir}/templates/decommissioned.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= "decommissioned-" + plan.args.POD %>\ndata: { pod: "<%= plan.args.POD %>" }\n',
  };
}
const instance = (replicas: number): string => `${API}\nkind: Instance\nframework: quorum\nversion: 1.0.0\nparams: { REPLICAS: ${replicas} }\n`;

describe('recovery and decommission plans of a framework', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  const logs: string[] = [];
  const key = { namespace: 'q', name: 'db' };

  beforeAll(async () => {
    h = await startAgentHarness({
      cluster: WORKLOAD_CLUSTER,
      files: { ...quorumFramework(), 'instances/q/db.yaml': instance(3) },
      message: 'quorum of three',
      agent: { podCheckIntervalMs: 0, coalesceMs: 10, log: (_level, message) => logs.push(message) },
    });
    ({ world, client, agent } = h);
    expect((await agent.pass()).reports.map((r) => `${r.instance} ${r.outcome.kind}`)).toEqual(['q/db complete']);
  }, 60_000);
  afterAll(() => h.stop());

  const pod = (name: string): Promise<KubeObject | undefined> => h.pod('q', name);
  const configMap = (name: string): Promise<KubeObject | undefined> => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'q', name });
  const setDown = (node: string, down: boolean): Promise<KubeObject> => h.setNodeDown(node, down);
  const runsOf = async (plan: string): Promise<{ args: Record<string, string>; status: string }[]> => {
    const cp = await h.checkpointOf(key);
    return [cp?.active, ...(cp?.history ?? [])].filter((r) => r?.plan === plan).map((r) => ({ args: r!.args, status: r!.state.status }));
  };
  async function passesUntil(done: () => Promise<boolean>, what: string): Promise<string[]> {
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      seen.push(...outcomeLines(await agent.pass()));
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; passes: ${seen.join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return seen;
  }

  it('GIVEN permanent: plan WHEN the node under db-1 fails THEN the recovery plan runs once with POD=db-1; a second broken pod within the hour is held by maxActionsPerHour', async () => {
    const lost = nodeOf(await pod('db-1'));
    await setDown(lost, true);
    await passesUntil(async () => (await configMap('recovered-db-1')) !== undefined, 'the recovery plan for db-1');
    expect((await configMap('recovered-db-1'))?.['data']).toEqual({ pod: 'db-1' });
    await passesUntil(async () => (await runsOf('recovery')).some((r) => r.status === 'COMPLETE'), 'the recovery run complete');
    expect(await runsOf('recovery')).toEqual([{ args: { POD: 'db-1' }, status: 'COMPLETE' }]);

    // Another node fails: its pod is broken too, but one recovery action per hour is the limit.
    const nodes = { 'db-0': nodeOf(await pod('db-0')), 'db-2': nodeOf(await pod('db-2')) };
    const other = nodes['db-0'] !== lost ? 'db-0' : 'db-2';
    const otherNode = nodes[other];
    if (otherNode !== lost) await setDown(otherNode, true);
    await passesUntil(async () => logs.some((l) => /recovery holds back: .*limits\.maxActionsPerHour \(1\) reached/.test(l)), 'the rate limit holding the next pod');
    for (let i = 0; i < 3; i++) await agent.pass();
    expect(await runsOf('recovery')).toHaveLength(1);
    expect(await configMap(`recovered-${other}`)).toBeUndefined();
    await setDown(lost, false);
    if (otherNode !== lost) await setDown(otherNode, false);
    await passesUntil(async () => podReady(await pod('db-0')) && podReady(await pod('db-1')) && podReady(await pod('db-2')), 'the pods ready again');
  }, 90_000);

  it('GIVEN decommission: { plan: decommission, volumes: delete } WHEN REPLICAS goes from 3 to 2 THEN the decommission plan runs for db-2, then its claim is deleted; the others stay', async () => {
    await h.push({ 'instances/q/db.yaml': instance(2) }, 'two servers');
    const claims = async (): Promise<string[]> => (await client.list('v1', 'PersistentVolumeClaim', 'q')).items.filter((c) => c.metadata.deletionTimestamp === undefined).map((c) => c.metadata.name ?? '').sort();
    await passesUntil(async () => !(await claims()).includes('data-db-2'), 'the claim of db-2 deleted');
    expect((await configMap('decommissioned-db-2'))?.['data']).toEqual({ pod: 'db-2' });
    expect(await runsOf('decommission')).toEqual([{ args: { POD: 'db-2' }, status: 'COMPLETE' }]);
    expect(await claims()).toEqual(['data-db-0', 'data-db-1']);
    // Done once: nothing more.
    for (let i = 0; i < 2; i++) expect(outcomeLines(await agent.pass())).toEqual([]);
    await agent.writer.flush();
    expect(checkHistory(world.sandbox.env, world.origin, { instances: ['q/db'] }).defects).toEqual([]);
  }, 90_000);
});
