/**
 * Recovery end to end (issue #13): the catalog ZooKeeper framework (its recovery rule shortened to
 * seconds) deployed by the agent from Git on the simulated cluster with three nodes. The node under
 * zk-1 fails; the agent replaces zk-1 (new claim, another node), ZooKeeper is back to 3/3, and the
 * replacement is one recorded run in git log. Pod requests through Git are carried out and recorded
 * with who asked; a request naming an unknown pod is refused in status, nothing disturbed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { Agent, PassReport } from '../../src/sync/agent.js';
import type { HistoryEntry } from '../../src/sync/history.js';
import { startAgentHarness, WORKLOAD_CLUSTER, type AgentHarness } from '../helpers/agent-harness.js';
import { catalogFrameworkFiles } from '../helpers/catalog-files.js';
import { until } from '../helpers/wait.js';
import { commitRequest } from '../../src/sync/request-commit.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { type AgentWorld, outcomeLines, nodeOf, podReady } from '../sync/fixtures.js';

/** The catalog ZooKeeper with `recovery` as its recovery rule. */
function catalogFiles(recovery: string): Record<string, string> {
  return catalogFrameworkFiles('zookeeper', '1.0.0', (fw) => {
    const at = fw.indexOf('\nrecovery:');
    const end = fw.indexOf('\ndecommission:');
    // The catalog's rule with seconds instead of minutes: replaced 1s after it went not ready.
    return `${fw.slice(0, at)}\n${recovery}${fw.slice(end)}`;
  });
}

describe('recovery: a lost node under a ZooKeeper server', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startAgentHarness({
      cluster: WORKLOAD_CLUSTER,
      files: {
        ...catalogFiles('recovery:\n  permanentTimeout: 1s\n  permanent: replace\n  limits: { podInterval: 1s, maxPods: 1 }\n'),
        'instances/zk/zk.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: zookeeper\nversion: 1.0.0\nparams: { REPLICAS: 3, MEMORY: 256Mi, HEAP_MB: 128 }\n',
      },
      message: 'zookeeper ensemble',
      agent: { podCheckIntervalMs: 0, coalesceMs: 10, ...(process.env.DEBUG_AGENT ? { log: (level, message) => console.log(level, message), onEngineEvent: (e) => console.log(e.type, 'step' in e ? e.step : '', 'message' in e ? e.message : '') } : {}) },
    });
    ({ world, client, agent } = h);
    const first = await agent.pass();
    expect(first.reports.map((r) => `${r.instance} ${r.outcome.kind}`)).toEqual(['zk/zk complete']);
  }, 60_000);
  afterAll(() => h.stop());

  const pod = (name: string): Promise<KubeObject | undefined> => h.pod('zk', name);
  const claim = (name: string): Promise<KubeObject | undefined> => h.claim('zk', name);
  /** Agent passes until one reports `want` (the agent acts once the rule's timeout has passed). */
  async function passUntil(want: string, what: string): Promise<PassReport> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const report = await agent.pass();
      if (outcomeLines(report).includes(want)) return report;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last pass: ${outcomeLines(report).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const history = (): Promise<HistoryEntry[]> => h.historyOf('zk/zk');
  async function status(): Promise<InstanceStatus> {
    await world.user.pull();
    return parseStatus(world.user.git('show', 'HEAD:status/zk/zk.yaml'), 'zk/zk');
  }

  it('GIVEN the node under zk-1 fails WHEN the agent looks at the pods THEN it replaces zk-1 on new storage on another node, ZooKeeper is 3/3 again, recorded once in git log', async () => {
    const before = await pod('zk-1');
    const oldClaim = await claim('data-zk-1');
    const lost = nodeOf(before);
    await h.setNodeDown(lost, true);
    await until(async () => !podReady(await pod('zk-1')), 15_000, 'zk-1 not ready on the failed node');

    await passUntil('zk/zk complete pod-replace', 'the replacement of zk-1');
    const after = await pod('zk-1');
    expect(podReady(after)).toBe(true);
    expect(nodeOf(after)).not.toBe(lost);
    expect((await claim('data-zk-1'))?.metadata.uid).not.toBe(oldClaim?.metadata.uid);
    const sts = await client.get({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'zk', name: 'zk' });
    expect(sts?.['status']).toMatchObject({ replicas: 3, readyReplicas: 3 });

    const s = await status();
    expect(s.plans?.['pod-replace']?.state.status).toBe('COMPLETE');
    expect(s.plans?.['pod-replace']?.reason).toMatch(/^recovery: pod zk-1 not ready for \d+s \(node-not-ready: its node \S+ is not ready\); replace after 1s$/);
    const replaced = (await history()).filter((h) => h.plan === 'pod-replace');
    // Exactly one run, started then complete, each naming the pod and who acted.
    expect(replaced.map((h) => h.event).reverse()).toEqual(['plan-started', 'plan-complete']);
    expect(new Set(replaced.map((h) => h.runId)).size).toBe(1);
    expect(replaced.map((h) => [h.pods, h.requestedBy])).toEqual([[['zk-1'], 'recovery'], [['zk-1'], 'recovery']]);
    // A healthy ensemble: the next passes do nothing more.
    expect(outcomeLines(await agent.pass())).toEqual([]);
    await h.setNodeDown(lost, false);
  }, 60_000);

  it('GIVEN a pod-restart request committed to Git WHEN the agent passes THEN zk-0 is restarted, recorded with who asked and why', async () => {
    await world.user.pull();
    const uid = (await pod('zk-0'))?.metadata.uid;
    const r = await commitRequest({ repo: world.user.dir, branch: 'main', cwd: world.user.dir, auth: { kind: 'none' } }, { instance: { namespace: 'zk', name: 'zk' }, request: { action: 'pod-restart', pod: 'zk-0', args: {}, reason: 'stale session cache' }, author: { name: 'Ada', email: 'ada@example.com' } });
    expect(r.pushed).toBe(false);
    await world.user.push();
    await passUntil('zk/zk complete pod-restart', 'the requested restart');
    const after = await pod('zk-0');
    expect(after?.metadata.uid).not.toBe(uid);
    expect(podReady(after)).toBe(true);
    const s = await status();
    expect(s.plans?.['pod-restart']).toMatchObject({ reason: `requested by Ada <ada@example.com>: stale session cache (request ${r.id})`, state: { status: 'COMPLETE' } });
    const restarted = (await history()).filter((h) => h.plan === 'pod-restart');
    expect(restarted.map((h) => [h.event, h.requestedBy, h.pods])).toEqual([['plan-complete', 'Ada <ada@example.com>', ['zk-0']], ['plan-started', 'Ada <ada@example.com>', ['zk-0']]]);
    // Carried out once: the next pass does nothing.
    expect(outcomeLines(await agent.pass())).toEqual([]);
  }, 60_000);

  it('GIVEN a pod-replace request naming a pod that does not exist WHEN the agent passes THEN it is refused in status and history, and no pod is touched', async () => {
    await world.user.pull();
    const uids = (await client.list('v1', 'Pod', 'zk')).items.map((p) => p.metadata.uid).sort();
    await commitRequest({ repo: world.user.dir, branch: 'main', cwd: world.user.dir, auth: { kind: 'none' } }, { instance: { namespace: 'zk', name: 'zk' }, request: { action: 'pod-replace', pod: 'zk-7', args: {} }, author: { name: 'Ada', email: 'ada@example.com' } });
    await world.user.push();
    await passUntil('zk/zk failed pod-replace', 'the refusal');
    const s = await status();
    expect(s.plans?.['pod-replace']?.state).toMatchObject({ status: 'FATAL_ERROR', message: expect.stringMatching(/^refused: pod zk-7 does not exist in namespace zk; pods of zk\/zk: zk-0, zk-1, zk-2/) });
    expect(s.sync?.status).toBe('Synced');
    expect((await client.list('v1', 'Pod', 'zk')).items.map((p) => p.metadata.uid).sort()).toEqual(uids);
    expect(outcomeLines(await agent.pass())).toEqual([]);
  }, 60_000);
});
