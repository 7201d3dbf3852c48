/**
 * For files that run `baton agent --once` (in process) against simulated clusters: a bare origin
 * with the web framework and the given files pushed, a user's clone to change it, and the agent run.
 *
 *   const repo = await agentRepo({ 'baton.yaml': ..., 'instances/shop/far.yaml': ... }, 'an instance on edge');
 *   const io = await repo.agentOnce(set.kubeconfigPath);   // io.out, io.exitCode
 *   await repo.change('edge: another server', (c) => c.write('baton.yaml', ...));
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { webFramework } from '../sync/fixtures.js';
import { gitSandbox, workClone, type GitSandbox, type WorkClone } from './git-server.js';

export type CapturedIO = CliIO & { out: string; err: string };

export function captureIO(cwd: string): CapturedIO {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => { io.out += t; }, stderr: (t: string) => { io.err += t; } };
  return io;
}

export interface AgentRepo {
  sandbox: GitSandbox;
  origin: string;
  user: WorkClone;
  /** `baton agent --git ORIGIN --once --kubeconfig KUBECONFIG` with one data dir for every run. */
  agentOnce(kubeconfig: string): Promise<CapturedIO>;
  /** Pulls, edits the user's clone, commits and pushes. */
  change(message: string, edit: (clone: WorkClone) => void): Promise<void>;
  cleanup(): void;
}

export async function agentRepo(files: Record<string, string>, message: string): Promise<AgentRepo> {
  const sandbox = gitSandbox();
  const origin = join(sandbox.dir, 'origin.git');
  execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
  const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
  for (const [path, text] of Object.entries({ ...webFramework(), ...files })) user.write(path, text);
  user.commit(message);
  await user.push();
  return {
    sandbox, origin, user,
    agentOnce: async (kubeconfig) => {
      const io = captureIO(sandbox.dir);
      io.exitCode = await main(['node', 'baton', 'agent', '--git', origin, '--once', '--kubeconfig', kubeconfig, '--data-dir', join(sandbox.dir, 'agent-data')], io);
      return io;
    },
    change: async (msg, edit) => {
      await user.pull();
      edit(user);
      user.commit(msg);
      await user.push();
    },
    cleanup: () => sandbox.cleanup(),
  };
}
