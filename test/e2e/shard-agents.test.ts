/**
 * Three `baton agent --shard-set` processes share one repository (real git, the simulated cluster
 * behind one recording proxy per agent): every instance is acted on by exactly one of them, every
 * transition reaches the one branch once although all three push to it; the owner of a plan waiting
 * on a gate is killed (SIGKILL), a survivor takes the instance over within the lease duration and the
 * plan resumes from its checkpoint without re-running the completed step. Which survivor completes it
 * is not fixed: a late lease renewal can let one act alone, then hand over when the other renews
 * (correct). What is checked is the invariant: no two members act on the instance at once (their
 * ownership windows, from `reconciling` to the run's outcome in their logs, never overlap, and every
 * write to its objects falls in its writer's window), the plan completes exactly once, by the member
 * that wrote its completion, and the history is exact. Waits are long: three
 * agents started through tsx on a loaded two-core machine take minutes to join (they catch hangs, not speed).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { gitAsync } from '../helpers/git-server.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { checkHistory, readTransitions } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { API, agentWorld, gatedFramework, instance, releaseGate, type AgentWorld } from '../sync/fixtures.js';

// Long enough for three agents compiling through tsx on two busy cores (the simulated API server in the test process answered in 2 s at load 11).
const LEASE_FLAGS = ['--lease-duration', '12s', '--renew-deadline', '9s', '--lease-retry', '1s'];
/** One member's run of an instance: from its `reconciling <instance>` line to the run's outcome line (`<instance>: ...`). */
interface Window { agent: number; from: number; to: number }

/** The windows in which agent `index` acted on `instance` (a run still open ends at `end`: the kill, or now). */
function windowsOf(agent: AgentProcess, index: number, instance: string, end: number): Window[] {
  const out: Window[] = [];
  let open: number | undefined;
  for (const { at, msg } of agent.timed) {
    if (msg.startsWith(`reconciling ${instance}: `)) open ??= at;
    // A worker's lines end with its outcome (or error) line; these two are logged inside the run.
    else if (open !== undefined && msg.startsWith(`${instance}: `) && !msg.startsWith(`${instance}: after the run:`) && !msg.startsWith(`${instance}: requests decided beside`)) {
      out.push({ agent: index, from: open, to: at });
      open = undefined;
    }
  }
  if (open !== undefined) out.push({ agent: index, from: open, to: end });
  return out;
}

/** Pairs of windows of different members that overlap in time. */
function overlapping(windows: readonly Window[]): [Window, Window][] {
  const out: [Window, Window][] = [];
  for (const a of windows) for (const b of windows) if (a.agent < b.agent && a.from < b.to && b.from < a.to) out.push([a, b]);
  return out;
}

const WEB = Array.from({ length: 24 }, (_, i) => ({ namespace: `team-${i % 3}`, name: `web-${i}` }));

describe('shard members as processes', () => {
  let world: AgentWorld;
  let cluster: ClusterProcess;
  let client: HttpKubeClient;
  const proxies: RecordingProxy[] = [];
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    world = await agentWorld();
    cluster = await startClusterProcess();
    client = await createKubeClient({ url: cluster.url });
    for (const [path, text] of Object.entries(gatedFramework())) world.user.write(path, text);
    for (const w of WEB) world.user.write(`instances/${w.namespace}/${w.name}.yaml`, instance({ VALUE: w.name }));
    world.user.write('instances/shop/slow.yaml', [API, 'kind: Instance', 'framework: gated', 'version: 1.0.0', ''].join('\n'));
    world.user.commit('24 web instances and one gated');
    await world.user.push();
  });
  afterAll(async () => {
    for (const a of agents) a.signal('SIGTERM');
    await Promise.all(agents.map((a) => Promise.race([a.exited, new Promise((r) => setTimeout(r, 15_000))])));
    for (const a of agents) a.signal('SIGKILL');
    for (const p of proxies) await p.close();
    client.close();
    await cluster.stop();
    await world.stop();
  });

  const start = async (who: string): Promise<AgentProcess> => {
    const proxy = await recordingProxy(cluster.url);
    proxies.push(proxy);
    const kubeconfig = proxy.kubeconfig(join(world.sandbox.dir, `kubeconfig-${who}`));
    const env = { ...world.sandbox.env, BATON_AUTHOR_NAME: `Agent ${who}`, BATON_AUTHOR_EMAIL: `${who}@example.com` };
    const agent = startAgentProcess(['--repo', world.origin, '--data-dir', join(world.sandbox.dir, `data-${who}`), '--interval', '300ms', '--kubeconfig', kubeconfig, '--no-events', '--shard-set', 'web', '--concurrency', '8', ...LEASE_FLAGS], env);
    agents.push(agent);
    return agent;
  };
  const checkpoint = (namespace: string, name: string): ReturnType<ConfigMapCheckpointStore['load']> => new ConfigMapCheckpointStore(client).load({ namespace, name });
  /** Indexes of the agents whose proxy saw a write to the instance's own ConfigMap (a step's apply). */
  const writersOf = (namespace: string, name: string, since = 0): number[] =>
    proxies.flatMap((p, i) => (p.writes(since).some((r) => r.path.startsWith(`/api/v1/namespaces/${namespace}/configmaps/${name}?`) || r.path === `/api/v1/namespaces/${namespace}/configmaps/${name}`) ? [i] : []));

  it('GIVEN three members WHEN they run THEN each instance is acted on by one, every transition lands once; a killed owner\'s plan resumes elsewhere without a re-run', async () => {
    const names = ['a', 'b', 'c'];
    for (const who of names) await start(who);
    try {
      for (const a of agents) await a.waitForLog(/acting under members \S+, \S+, \S+$/, 240_000);
      // Polled with an asynchronous git, seldom: the simulated API server shares this process's event loop.
      const completeCommits = async (): Promise<number> => (await gitAsync(world.sandbox.env, world.origin, 'log', '--format=%(trailers:key=Baton-Event,valueonly)', 'main')).split('\n').filter((e) => e === 'plan-complete').length;
      await until(async () => (await completeCommits()) >= WEB.length, 240_000, 'every web instance COMPLETE in Git', 1000);
      await until(async () => (await checkpoint('shop', 'slow'))?.checkpoint.active?.phases[0]?.state.status === 'COMPLETE', 60_000, 'phase one of shop/slow', 500);

      // One actor per instance, and the work spread over all three.
      for (const w of WEB) expect(writersOf(w.namespace, w.name), `${w.namespace}/${w.name}`).toHaveLength(1);
      expect(new Set(WEB.map((w) => writersOf(w.namespace, w.name)[0])).size).toBe(3);
      // All three pushed status to the one branch; every run recorded exactly once.
      const authors = new Set(readTransitions(world.sandbox.env, world.origin).commits.map((c) => c.author));
      expect(authors).toEqual(new Set(['Agent a', 'Agent b', 'Agent c']));
      const history = checkHistory(world.sandbox.env, world.origin);
      expect(history.defects, JSON.stringify(history.defects)).toEqual([]);
      for (const w of WEB) {
        const events = history.commits.filter((c) => c.instance === `${w.namespace}/${w.name}`).map((c) => c.event);
        expect(events.filter((e) => e === 'plan-started'), `${w.namespace}/${w.name}`).toHaveLength(1);
        expect(events.filter((e) => e === 'plan-complete'), `${w.namespace}/${w.name}`).toHaveLength(1);
      }

      // Kill the owner of shop/slow while its plan waits on the gate of phase two: the member whose run of it
      // is open now (not the one that wrote phase one: while members join, the instance can change hands).
      const running = (): number[] => agents.flatMap((a, i) => (windowsOf(a, i, 'shop/slow', Infinity).some((w) => w.to === Infinity) ? [i] : []));
      await until(() => running().length === 1, 60_000, 'one member running shop/slow', 200);
      const [owner] = running();
      expect(owner).toBeDefined();
      const victim = agents[owner ?? 0];
      const killedAt = Date.now();
      victim?.signal('SIGKILL');
      await victim?.exited;
      const survivors = agents.filter((a) => a !== victim);
      // Taken over: the deadline only catches a hang. How soon is not asserted here (three agent
      // processes on two shared cores; the guide: no timed assertions in tests): the bound is
      // test/shards/takeover.test.ts's, on a virtual clock, and the figures are bench scale's.
      await until(() => survivors.some((a) => a.timed.some((l) => l.at >= killedAt && l.msg.startsWith('reconciling shop/slow: '))), 60_000, 'a survivor reconciling shop/slow', 200);
      await releaseGate(client, 'shop', 'gate-slow');
      await until(async () => (await checkpoint('shop', 'slow'))?.checkpoint.active?.state.status === 'COMPLETE', 60_000, 'shop/slow COMPLETE on the new owner', 500);
      // The completed step (phase one's ConfigMap) was not applied again by anyone after the kill.
      expect(writersOf('shop', 'slow', killedAt)).toEqual([]);
      const run = (await checkpoint('shop', 'slow'))?.checkpoint.active?.id ?? '';
      // Per transition: a member's commit may record several (its subject then only counts them).
      await until(() => readTransitions(world.sandbox.env, world.origin).commits.some((c) => c.run === run && c.event === 'plan-complete'), 60_000, 'the completion in Git', 500);
      const slow = checkHistory(world.sandbox.env, world.origin, { instances: ['shop/slow'] });
      expect(slow.defects, JSON.stringify(slow.defects)).toEqual([]);
      expect(slow.runs.get(run)?.map((c) => c.event)).toEqual(['plan-started', 'phase-complete', 'phase-complete', 'plan-complete']);
      // Exactly once: one start and one completion of shop/slow in all of Git (the run was resumed, not started anew).
      const slowEvents = checkHistory(world.sandbox.env, world.origin).commits.filter((c) => c.instance === 'shop/slow').map((c) => c.event);
      expect(slowEvents.filter((e) => e === 'plan-started')).toHaveLength(1);
      expect(slowEvents.filter((e) => e === 'plan-complete')).toHaveLength(1);
      // No two members acted on shop/slow at once: the victim until its death, the survivors (in whatever
      // order the leases handed it over) from their `reconciling` line to their run's outcome.
      const now = Date.now();
      const windows = agents.flatMap((a, i) => windowsOf(a, i, 'shop/slow', a === victim ? killedAt : now));
      const described = windows.map((w) => `${names[w.agent] ?? w.agent} ${new Date(w.from).toISOString()}..${new Date(w.to).toISOString()}`).join(', ');
      expect(overlapping(windows), described).toEqual([]);
      expect(windows.some((w) => w.agent !== owner && w.from >= killedAt), described).toBe(true);
      // The windows are where the writes are: every write of a member to shop/slow's objects since the kill is inside one of its windows.
      const slowPath = /\/namespaces\/shop\/[a-z]+\/(slow|baton-checkpoint-slow|gate-slow)(\?|\/|$)/;
      const lastWrites = proxies.flatMap((p, i) => p.writes(killedAt).filter((r) => slowPath.test(r.path)).map((r) => ({ agent: i, at: r.at, path: r.path })));
      for (const write of lastWrites) {
        expect(windows.some((w) => w.agent === write.agent && w.from <= write.at && write.at <= w.to), `${names[write.agent] ?? write.agent} wrote ${write.path} at ${new Date(write.at).toISOString()} outside its windows (${described})`).toBe(true);
      }
      // Completed by the member that wrote the completion: the author of plan-complete wrote the last checkpoint.
      const completedBy = readTransitions(world.sandbox.env, world.origin).commits.find((c) => c.run === run && c.event === 'plan-complete')?.author;
      const lastCheckpointWrite = lastWrites.filter((w) => w.path.includes('/baton-checkpoint-slow')).sort((x, y) => x.at - y.at).at(-1);
      expect(lastCheckpointWrite, 'a survivor wrote shop/slow\'s checkpoint').toBeDefined();
      expect(survivors.map((a) => `Agent ${names[agents.indexOf(a)] ?? ''}`)).toContain(completedBy);
      expect(completedBy).toBe(`Agent ${names[lastCheckpointWrite?.agent ?? -1] ?? ''}`);

      // The survivors share everything now: a change to an instance of the killed member is applied.
      const moved = WEB.find((w) => writersOf(w.namespace, w.name)[0] === owner);
      expect(moved).toBeDefined();
      if (moved) {
        world.user.write(`instances/${moved.namespace}/${moved.name}.yaml`, instance({ VALUE: 'changed' }));
        world.user.commit('change an instance of the killed member');
        // Three agents push status to the same branch: the user's push may meet a moved tip or a held ref
        // lock, as a person's would; pull and push again.
        for (let attempt = 1; ; attempt++) {
          try {
            await world.user.pull();
            await world.user.push();
            break;
          } catch (err) {
            if (attempt >= 10) throw err;
          }
        }
        await until(async () => (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: moved.namespace, name: moved.name }))?.data !== undefined
          && ((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: moved.namespace, name: moved.name }))?.data as Record<string, string>).value === 'changed', 60_000, 'the change applied by a survivor', 500);
      }
      const final = checkHistory(world.sandbox.env, world.origin).defects;
      expect(final, JSON.stringify(final)).toEqual([]);
      // A graceful stop ends with code 0.
      for (const a of survivors) a.signal('SIGTERM');
      expect(await Promise.all(survivors.map((a) => a.exited))).toEqual([0, 0]);
    } catch (err) {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${agents.map((a, i) => `--- ${names[i] ?? i}:\n${a.logs.slice(-200).join('\n')}`).join('\n')}`);
    }
  }, 600_000);
});
