/**
 * The harness of an in-process agent test, in one place: a git sandbox with a bare origin and a user's
 * work clone (the `web` framework written), a simulated cluster, a kube client and a renderer, the
 * test's files committed and pushed, and an agent on its own mirror, started. One harness serves a
 * whole file (beforeAll/afterAll): tests that are independent share it rather than building their own.
 *
 *   let h: AgentHarness;
 *   beforeAll(async () => { h = await startAgentHarness({ files: { 'instances/shop/a.yaml': instance() } }); });
 *   afterAll(() => h.stop());
 *   it('...', async () => { await h.agent.pass(); expect((await h.statusOf('shop/a'))?.state).toBe('COMPLETE'); });
 */
import type { ClusterOptions } from '../../src/cluster/index.js';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { GitMirror } from '../../src/git/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent, AgentOptions } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { agentWorld, mirrorOf, testAgent, type AgentWorld } from '../sync/fixtures.js';
import type { WorkClone } from './git-server.js';

export interface AgentHarnessOptions {
  /** Files written into the user's clone (besides the `web` framework), committed and pushed before the agent starts. */
  files?: Record<string, string>;
  /** The commit message for `files`. */
  message?: string;
  /** Runs after `files` are written and before the commit (symbolic links, encrypted files). */
  prepare?: (world: AgentWorld) => void | Promise<void>;
  /** Agent options over `testAgent`'s; a function when they need the client or the world. */
  agent?: Partial<AgentOptions> | ((parts: { world: AgentWorld; client: HttpKubeClient }) => Partial<AgentOptions>);
  /** The agent's mirror (default: a bare clone in `agent/` under the sandbox). */
  mirror?: (world: AgentWorld) => GitMirror;
  cluster?: ClusterOptions;
}

export interface AgentHarness {
  world: AgentWorld;
  /** `world.user`: the user's work clone. */
  user: WorkClone;
  client: HttpKubeClient;
  renderer: Renderer;
  agent: Agent;
  /** A file on the origin's main branch (after pulling), or undefined when it is not there. */
  gitFile(path: string): Promise<string | undefined>;
  /** The parsed status file of `namespace/name` on the origin's main branch, or undefined. */
  statusOf(instance: string): Promise<ReturnType<typeof parseStatus> | undefined>;
  /** Writes `files` into the user's clone (after pulling), commits and pushes; returns the commit. */
  push(files: Record<string, string>, message: string): Promise<string>;
  /** Runs `baton ARGS` in this process with the sandbox as working directory. */
  baton(args: string[]): Promise<CliRun>;
  /** Stops the agent, closes the client and renderer, stops the cluster and removes the sandbox. */
  stop(): Promise<void>;
}

export async function startAgentHarness(options: AgentHarnessOptions = {}): Promise<AgentHarness> {
  const world = await agentWorld(options.cluster);
  const client = await createKubeClient({ url: world.cluster.url });
  const renderer = new Renderer();
  const user = world.user;
  for (const [path, text] of Object.entries(options.files ?? {})) user.write(path, text);
  await options.prepare?.(world);
  if (user.git('status', '--porcelain') !== '') {
    user.commit(options.message ?? 'the test repository');
    await user.push();
  }
  const extra = typeof options.agent === 'function' ? options.agent({ world, client }) : options.agent ?? {};
  const agent = testAgent(options.mirror?.(world) ?? mirrorOf(world), client, renderer, extra);
  await agent.start();
  const gitFile = async (path: string): Promise<string | undefined> => {
    await user.pull();
    try {
      return user.git('show', `HEAD:${path}`);
    } catch {
      return undefined;
    }
  };
  return {
    world,
    user,
    client,
    renderer,
    agent,
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
    baton: (args) => runBaton(args, world.sandbox.dir),
    stop: async () => {
      await agent.stop();
      await renderer.close();
      client.close();
      await world.stop();
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
