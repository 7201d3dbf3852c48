/**
 * The harness of an in-process agent test, in one place: a git sandbox with a bare origin and a user's
 * work clone (the `web` framework written), a simulated cluster (or several, in one kubeconfig), a kube
 * client and a renderer, the test's files committed and pushed, and an agent on its own mirror, started.
 * One harness serves a whole file (beforeAll/afterAll): tests that are independent share it rather than
 * building their own.
 *
 *   let h: AgentHarness;
 *   beforeAll(async () => { h = await startAgentHarness({ files: { 'instances/shop/a.yaml': instance() } }); });
 *   afterAll(() => h.stop());
 *   it('...', async () => { await h.agent.pass(); expect((await h.statusOf('shop/a'))?.state).toBe('COMPLETE'); });
 *
 * `startRepoHarness` is the same world without the in-process agent: for tests that run `baton agent
 * --once` (`agentOnce`), `baton apply` or the engine directly.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startCluster, type Cluster, type ClusterOptions } from '../../src/cluster/index.js';
import { kubeconfigDocument } from '../../src/cluster/server/kubeconfig.js';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { GitMirror } from '../../src/git/index.js';
import { trackingRef } from '../../src/git/mirror.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent, AgentOptions } from '../../src/sync/agent.js';
import { readHistory, type HistoryEntry } from '../../src/sync/history.js';
import { commitRequest, type RequestInput } from '../../src/sync/request-commit.js';
import { parseStatus, type InstanceKey, type InstanceStatus } from '../../src/sync/status-file.js';
import { agentWorld, mirrorOf, testAgent, type AgentWorld } from '../sync/fixtures.js';
import { runKubectl, type KubectlResult } from './cluster.js';
import type { WorkClone } from './git-server.js';

/** A cluster whose controllers run workloads (pods start and go Ready in 10 ms) on three nodes: recovery, decommission and pod actions. */
export const WORKLOAD_CLUSTER: ClusterOptions = { controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, nodes: 3 };

/** Who commits requests in these tests. */
export const ADA = { name: 'Ada', email: 'ada@example.com' };

export interface RepoHarnessOptions {
  /** Files written into the user's clone (besides the `web` framework), committed and pushed before the agent starts. */
  files?: Record<string, string>;
  /** The commit message for `files`. */
  message?: string;
  /** Runs after `files` are written and before the commit (symbolic links, encrypted files). */
  prepare?: (world: AgentWorld) => void | Promise<void>;
  /** The options of every simulated cluster (default: no controllers). */
  cluster?: ClusterOptions;
  /**
   * Simulated clusters in all (default 1). With more than one they are named `baton-sim-1` (the own
   * cluster, `world.cluster`), `baton-sim-2`, ..., and `kubeconfigPath` holds a context of each name.
   */
  clusters?: number;
}

export interface RepoHarness {
  world: AgentWorld;
  /** `world.user`: the user's work clone. */
  user: WorkClone;
  /** A client of the own cluster. */
  client: HttpKubeClient;
  renderer: Renderer;
  /** Every simulated cluster, the own first. */
  clusters: Cluster[];
  /** The kubeconfig of all clusters (its current context the own one). */
  kubeconfigPath: string;
  /** A client of the cluster of `context` in `kubeconfigPath` (closed on stop). */
  clientOf(context: string): Promise<HttpKubeClient>;
  /** kubectl against `kubeconfigPath` (`--context` when given), with a discovery cache of its own. */
  kubectl(args: string[], context?: string): Promise<KubectlResult>;
  /** Plan checkpoints in the own cluster. */
  checkpoints: ConfigMapCheckpointStore;
  checkpointOf(instance: InstanceKey): Promise<Checkpoint | undefined>;
  /** A file on the origin's main branch (after pulling), or undefined when it is not there. */
  gitFile(path: string): Promise<string | undefined>;
  /** The parsed status file of `namespace/name` on the origin's main branch, or undefined. */
  statusOf(instance: string): Promise<ReturnType<typeof parseStatus> | undefined>;
  /** Writes `files` into the user's clone (after pulling), commits and pushes; returns the commit. */
  push(files: Record<string, string>, message: string): Promise<string>;
  /** Commits a request for `instance` to the origin as `author` (default Ada), as `baton plan ...` does; returns its id. */
  request(instance: InstanceKey, request: RequestInput, author?: { name: string; email: string }): Promise<string>;
  /** Runs `baton ARGS` in this process with `cwd` (default the sandbox) as working directory. */
  baton(args: string[], cwd?: string): Promise<CliRun>;
  /** `baton agent --once` on the origin and `kubeconfigPath`, with its data in the sandbox; `args` are appended. */
  agentOnce(args?: string[]): Promise<CliRun>;
  /** The history of `instance` (`ns/name`) on the origin's main branch, newest first, read by a fresh mirror. */
  historyOf(instance: string): Promise<HistoryEntry[]>;
  /** Pods, claims and nodes of the own cluster. */
  pod(namespace: string, name: string): Promise<KubeObject | undefined>;
  pods(namespace: string): Promise<KubeObject[]>;
  claim(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Marks a simulated node failed (its pods go not ready) or back. */
  setNodeDown(node: string, down: boolean): Promise<KubeObject>;
  /** Closes the clients and renderer, stops the clusters and removes the sandbox. */
  stop(): Promise<void>;
}

export interface AgentHarnessOptions extends RepoHarnessOptions {
  /** Agent options over `testAgent`'s; a function when they need the client or the world. */
  agent?: Partial<AgentOptions> | ((parts: { world: AgentWorld; client: HttpKubeClient }) => Partial<AgentOptions>);
  /** The agent's mirror (default: a bare clone in `agent/` under the sandbox). */
  mirror?: (world: AgentWorld) => GitMirror;
}

export interface AgentHarness extends RepoHarness {
  agent: Agent;
  /** The status file of `instance` once the agent's status writer has pushed everything; throws when there is none. */
  statusInGit(instance: InstanceKey): Promise<InstanceStatus>;
  /** Stops the agent, then everything `RepoHarness.stop` stops. */
  stop(): Promise<void>;
}

export async function startRepoHarness(options: RepoHarnessOptions = {}): Promise<RepoHarness> {
  const count = options.clusters ?? 1;
  const world = await agentWorld(count > 1 ? { ...options.cluster, name: 'baton-sim-1' } : options.cluster);
  const extra: Cluster[] = [];
  for (let i = 2; i <= count; i++) extra.push(await startCluster({ controllers: false, ...options.cluster, name: `baton-sim-${i}`, kubeconfigOut: join(world.sandbox.dir, `kubeconfig-${i}`) }));
  const clusters = [world.cluster, ...extra];
  let kubeconfigPath = world.cluster.kubeconfigPath;
  if (count > 1) {
    kubeconfigPath = join(world.sandbox.dir, 'kubeconfig');
    const entries = clusters.map((c) => c.kubeconfigEntries);
    writeFileSync(kubeconfigPath, kubeconfigDocument({ clusters: entries.flatMap((e) => e.clusters), users: entries.flatMap((e) => e.users), contexts: entries.flatMap((e) => e.contexts), current: world.cluster.name }), { mode: 0o600 });
  }
  const client = await createKubeClient({ url: world.cluster.url });
  const others: HttpKubeClient[] = [];
  const renderer = new Renderer();
  const checkpoints = new ConfigMapCheckpointStore(client);
  const user = world.user;
  for (const [path, text] of Object.entries(options.files ?? {})) user.write(path, text);
  await options.prepare?.(world);
  if (user.git('status', '--porcelain') !== '') {
    user.commit(options.message ?? 'the test repository');
    await user.push();
  }
  const gitFile = async (path: string): Promise<string | undefined> => {
    await user.pull();
    try {
      return user.git('show', `HEAD:${path}`);
    } catch {
      return undefined;
    }
  };
  const sandbox = world.sandbox.dir;
  let readers = 0;
  return {
    world,
    user,
    client,
    renderer,
    clusters,
    kubeconfigPath,
    clientOf: async (context) => {
      const c = await createKubeClient({ kubeconfigPath, context });
      others.push(c);
      return c;
    },
    kubectl: (args, context) => runKubectl(kubeconfigPath, join(sandbox, 'kubectl', context ?? 'current', 'cache'), context === undefined ? args : ['--context', context, ...args]),
    checkpoints,
    checkpointOf: async (instance) => (await checkpoints.load(instance))?.checkpoint,
    gitFile,
    statusOf: async (instance) => {
      const path = `status/${instance}.yaml`;
      const text = await gitFile(path);
      return text === undefined ? undefined : parseStatus(text, path);
    },
    push: async (files, message) => {
      await user.pull();
      for (const [path, text] of Object.entries(files)) user.write(path, text);
      const commit = user.commit(message);
      await user.push();
      return commit;
    },
    request: async (instance, request, author = ADA) => (await commitRequest({ repo: world.origin, branch: 'main', env: world.sandbox.env, cwd: sandbox }, { instance, request, author })).id,
    baton: (args, cwd = sandbox) => runBaton(args, cwd),
    agentOnce: (args = []) => runBaton(['agent', '--git', world.origin, '--once', '--kubeconfig', kubeconfigPath, '--data-dir', join(sandbox, 'agent-data'), ...args], sandbox),
    historyOf: async (instance) => {
      const reader = mirrorOf(world, `reader-${++readers}`);
      await reader.init();
      await reader.fetch('main');
      return readHistory(reader, { ref: trackingRef('main'), instance });
    },
    pod: (namespace, name) => client.get({ apiVersion: 'v1', kind: 'Pod', namespace, name }),
    pods: async (namespace) => (await client.list('v1', 'Pod', namespace)).items,
    claim: (namespace, name) => client.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name }),
    setNodeDown: (node, down) => client.patch({ apiVersion: 'v1', kind: 'Node', name: node }, { metadata: { annotations: { 'sim.baton.dev/node-down': down ? 'true' : null } } }, 'merge'),
    stop: async () => {
      await renderer.close();
      for (const c of [client, ...others]) c.close();
      await Promise.all(extra.map((c) => c.stop()));
      await world.stop();
    },
  };
}

export async function startAgentHarness(options: AgentHarnessOptions = {}): Promise<AgentHarness> {
  const repo = await startRepoHarness(options);
  const { world, client, renderer, user } = repo;
  const extra = typeof options.agent === 'function' ? options.agent({ world, client }) : options.agent ?? {};
  const agent = testAgent(options.mirror?.(world) ?? mirrorOf(world), client, renderer, extra);
  await agent.start();
  return {
    ...repo,
    agent,
    statusInGit: async (instance) => {
      await agent.writer.flush();
      await user.pull();
      const path = `status/${instance.namespace}/${instance.name}.yaml`;
      return parseStatus(user.git('show', `HEAD:${path}`), path);
    },
    stop: async () => {
      await agent.stop();
      await repo.stop();
    },
  };
}

export interface CliRun {
  /** The exit code main() returned, or the one the command set. */
  code: number;
  out: string;
  err: string;
}

/** `baton ARGS` in this process (main() with a capturing CliIO), as a user in `cwd` would run it. */
export async function runBaton(args: string[], cwd: string): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIO = { isTTY: false, cwd, exitCode: 0, stdout: (t) => { out += t; }, stderr: (t) => { err += t; } };
  const code = await main(['node', 'baton', ...args], io);
  return { code: code === 0 ? io.exitCode : code, out, err };
}

/** Whether a pod is Ready and not being deleted. */
export function isReady(pod: KubeObject | undefined): boolean {
  const conditions = (pod?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return pod !== undefined && pod.metadata.deletionTimestamp === undefined && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}
