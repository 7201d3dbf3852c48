/**
 * The paused-leader scenario (issue #11 item 3), shared by the normal suite (once) and the reliability
 * suite (repeated): two `baton agent` processes against the simulated cluster, each behind its own
 * recording proxy and with its own commit author. Agent A leads and runs a plan that waits on a gate;
 * A is paused with SIGSTOP; B takes the lease, resumes the plan and completes it; A gets SIGCONT. The
 * result says what A wrote to the cluster and to Git after it was resumed (it must be nothing).
 */
import { join } from 'node:path';
import { createKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { releaseGate, type AgentWorld } from '../sync/fixtures.js';
import { startAgentProcess, type AgentProcess } from './agent-process.js';
import { git } from './git-server.js';
import { recordingProxy, type RecordedRequest } from './recording-proxy.js';
import { until } from './wait.js';

/**
 * Short enough that B takes over soon after A is paused, long enough that A's renewals (every 500 ms,
 * through the proxy to the API server in the test's own process) never miss the deadline on a loaded
 * machine before the pause: with 4s/3s, A sometimes lost its lease through slow renewals under load
 * before it was paused, and then the scenario proved nothing. The pause is what must exceed it.
 */
export const PAUSE_LEASE = ['--lease-duration', '10s', '--renew-deadline', '8s', '--lease-retry', '500ms'];

export interface PausedLeaderResult {
  /** A's requests to the cluster that change something, after SIGCONT. */
  clusterWrites: RecordedRequest[];
  /** Commits by A that reached the origin after SIGCONT. */
  gitCommits: string[];
  /** A's exit code. */
  exitCode: number | string;
  /** A's log after SIGCONT. */
  logAfterResume: string[];
}

/**
 * When A is paused: `gate` with its plan waiting on the gate of phase two; `start` the moment it
 * starts reconciling the instance; `idle` after it completed the plan (B then runs a new change).
 */
export type PausePoint = 'gate' | 'start' | 'idle';

/**
 * SIGSTOPs A, which must still lead: a leader that already stepped down (its renewals failed) would make
 * the scenario prove nothing, so that is an error naming the cause rather than a pass.
 */
function pauseLeader(a: AgentProcess): void {
  const lost = a.logs.find((l) => /lost lease/.test(l));
  if (lost !== undefined) throw new Error(`A stepped down before it was paused (${lost}): the scenario needs a leader at the pause`);
  a.signal('SIGSTOP');
}

/** Runs the scenario once for instance `namespace/name` (a `gatedFramework` instance already pushed). */
export async function pausedLeader(world: AgentWorld, namespace: string, name: string, tag: string, pauseAt: PausePoint = 'gate'): Promise<PausedLeaderResult> {
  const client = await createKubeClient({ url: world.cluster.url });
  const proxies = [await recordingProxy(world.cluster.url), await recordingProxy(world.cluster.url)] as const;
  const agents: AgentProcess[] = [];
  const start = (who: 'A' | 'B', index: 0 | 1): AgentProcess => {
    const kubeconfig = proxies[index].kubeconfig(join(world.sandbox.dir, `kubeconfig-${tag}-${who}`));
    const env = { ...world.sandbox.env, BATON_AUTHOR_NAME: `Agent ${who} ${tag}`, BATON_AUTHOR_EMAIL: `${who.toLowerCase()}@example.com` };
    const agent = startAgentProcess(['--git', world.origin, '--data-dir', join(world.sandbox.dir, `data-${tag}-${who}`), '--interval', '300ms', '--kubeconfig', kubeconfig, '--no-events', ...PAUSE_LEASE], env);
    agents.push(agent);
    return agent;
  };
  const checkpoint = async (): Promise<ReturnType<ConfigMapCheckpointStore['load']>> => new ConfigMapCheckpointStore(client).load({ namespace, name });
  const commitsBy = (author: string): string[] => git(world.sandbox.env, world.origin, 'log', '--format=%H', `--author=${author}`, 'main').split('\n').filter(Boolean);
  try {
    const a = start('A', 0);
    await a.waitForLog(/became leader/, 60_000);
    const b = start('B', 1);
    await b.waitForLog(/held by another agent/, 60_000);
    let run: string;
    if (pauseAt === 'idle') {
      await releaseGate(client, namespace, `gate-${name}`);
      await until(async () => (await checkpoint())?.checkpoint.active?.state.status === 'COMPLETE', 60_000, `${tag}: A's completion`);
      run = (await checkpoint())?.checkpoint.active?.id ?? '';
      await until(() => git(world.sandbox.env, world.origin, 'log', '--format=%s', `--grep=Baton-Run: ${run}`, 'main').includes('COMPLETE'), 60_000, `${tag}: A's completion commit`);
      pauseLeader(a);
      // New work that B will do, and A would do too when it wakes.
      await world.user.pull();
      world.user.write(`instances/${namespace}/${name}.yaml`, world.user.git('show', `HEAD:instances/${namespace}/${name}.yaml`).replace(/VALUE: .*/, `VALUE: "${tag}-changed"`));
      world.user.commit(`${tag}: change while A is paused`);
      await world.user.push();
      await b.waitForLog(/became leader/, 60_000);
      await until(async () => (await checkpoint())?.checkpoint.active?.id !== run && (await checkpoint())?.checkpoint.active?.state.status === 'COMPLETE', 60_000, `${tag}: B's plan`);
      run = (await checkpoint())?.checkpoint.active?.id ?? '';
    } else {
      if (pauseAt === 'gate') {
        await until(async () => (await checkpoint())?.checkpoint.active?.phases[0]?.state.status === 'COMPLETE', 60_000, `${tag}: phase one of ${namespace}/${name}`);
      } else {
        await a.waitForLog(new RegExp(`reconciling ${namespace}/${name}`), 60_000);
      }
      pauseLeader(a);
      await b.waitForLog(/became leader/, 60_000);
      await b.waitForLog(new RegExp(`reconciling ${namespace}/${name}`), 30_000);
      await releaseGate(client, namespace, `gate-${name}`);
      await until(async () => (await checkpoint())?.checkpoint.active?.state.status === 'COMPLETE', 60_000, `${tag}: B's plan`);
      run = (await checkpoint())?.checkpoint.active?.id ?? '';
    }
    await until(() => git(world.sandbox.env, world.origin, 'log', '--format=%s', `--author=Agent B ${tag}`, `--grep=Baton-Run: ${run}`, 'main').includes('COMPLETE'), 60_000, `${tag}: B's completion`);
    const beforeResume = new Set(commitsBy(`Agent A ${tag}`));
    // What A sends from here on is after its resumption (the proxy records in arrival order).
    const seenBeforeResume = proxies[0].requests.length;
    const logged = a.logs.length;
    a.signal('SIGCONT');
    const exitCode = await Promise.race([a.exited, new Promise<string>((r) => setTimeout(() => r('still running after 30 s'), 30_000))]);
    return {
      clusterWrites: proxies[0].requests.slice(seenBeforeResume).filter((r) => r.method !== 'GET'),
      gitCommits: commitsBy(`Agent A ${tag}`).filter((c) => !beforeResume.has(c)),
      exitCode,
      logAfterResume: a.logs.slice(logged),
    };
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- A:\n${agents[0]?.logs.join('\n') ?? ''}\n--- B:\n${agents[1]?.logs.join('\n') ?? ''}`);
  } finally {
    for (const agent of agents) {
      agent.signal('SIGCONT');
      agent.signal('SIGTERM');
    }
    await Promise.all(agents.map((agent) => Promise.race([agent.exited, new Promise((r) => setTimeout(r, 15_000))])));
    for (const agent of agents) agent.signal('SIGKILL');
    for (const p of proxies) await p.close();
    client.close();
  }
}
