/**
 * `baton pod restart|replace <namespace>/<instance> <pod>`: through Git (default: a commit appending a
 * `pod-restart` / `pod-replace` request to requests/<namespace>/<instance>.yaml, which the agent carries
 * out and records) or, with --kubeconfig, --context or --direct, against the cluster at once (like `baton apply`), recorded in the
 * instance's checkpoint and as Kubernetes Events. docs/recovery.md.
 */
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { errorMessage } from '../../errors.js';
import { createKubeClient } from '../../kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import { defaultHooks } from '../../plans/defaults.js';
import { KubeEventRecorder } from '../../plans/kube-events.js';
import { eventLine } from '../../plans/progress-text.js';
import { parseDuration } from '../../render/index.js';
import { runPodAction, type PodActionKind } from '../../recovery/index.js';
import { commitRequest } from '../../sync/request-commit.js';
import { authFromEnv } from '../../sync/repo-access.js';
import type { CliIO } from '../io.js';
import { deprecatedAlias } from '../conventions.js';
import { requestMode } from '../request-mode.js';

interface PodFlags {
  reason?: string;
  direct?: boolean;
  kubeconfig?: string;
  context?: string;
  timeout: string;
  git: string;
  branch: string;
}

const WHAT: Record<PodActionKind, string> = {
  restart: 'Delete a pod of the instance; its controller creates it again; wait until it is Ready',
  replace: 'Delete a pod and its own volume claims: it comes back on new storage, possibly on another node (a lost node)',
};

export function registerPod(program: Command, io: CliIO): void {
  const pod = program.command('pod').description('Pod actions: restart or replace a pod of an instance (through Git, or --direct against the cluster)');
  for (const action of ['restart', 'replace'] as const) {
    const cmd = pod
      .command(action)
      .description(WHAT[action])
      .argument('<instance>', '<namespace>/<name>')
      .argument('<pod>', 'a pod of the instance, e.g. zk-1')
      .option('--reason <text>', 'why: recorded in status, history and Kubernetes Events with who asked')
      .option('--direct', 'act on the cluster now (default kubeconfig) instead of committing a request for the agent')
      .option('--kubeconfig <file>', 'act on the cluster now, with this kubeconfig (as --direct)')
      .option('--context <name>', 'act on the cluster now, with this kubeconfig context (as --direct)')
      .option('--timeout <duration>', 'with --direct: how long to wait for the pod to be Ready again', '10m')
      .option('--git <url|path>', 'Git repository: a working clone commits locally (you push); a URL or bare repository is pushed', '.')
      .option('--branch <name>', 'branch the agent watches', 'main')
      .action(async (instance: string, podName: string, flags: PodFlags, self: Command) => {
        const [namespace, name, extra] = instance.split('/');
        if (!namespace || !name || extra !== undefined) {
          io.stderr(`error: instance ${JSON.stringify(instance)}: expected <namespace>/<name>\n`);
          io.exitCode = 2;
          return;
        }
        const timeoutSeconds = parseDuration(flags.timeout);
        if (timeoutSeconds === undefined || timeoutSeconds === 0) {
          io.stderr(`error: --timeout ${JSON.stringify(flags.timeout)}: expected a duration such as 90s, 10m or 1h\n`);
          io.exitCode = 2;
          return;
        }
        // Like the plan control commands: --kubeconfig or --context (or --direct, for the default kubeconfig) acts on the cluster.
        const how = requestMode(self, io, flags);
        try {
          io.exitCode = how.mode === 'direct'
            ? await direct(io, action, { namespace, name }, podName, flags, timeoutSeconds)
            : await viaGit(io, action, { namespace, name }, podName, flags);
        } catch (err) {
          io.stderr(`error: ${errorMessage(err)}\n`);
          io.exitCode = 1;
        }
      });
    deprecatedAlias(cmd, io, { flags: '--repo <url|path>', attribute: 'repo' }, { flag: '--git', attribute: 'git' });
  }
}

function author(): { name: string; email: string } | undefined {
  return process.env.BATON_AUTHOR_NAME && process.env.BATON_AUTHOR_EMAIL ? { name: process.env.BATON_AUTHOR_NAME, email: process.env.BATON_AUTHOR_EMAIL } : undefined;
}

async function viaGit(io: CliIO, action: PodActionKind, instance: { namespace: string; name: string }, pod: string, flags: PodFlags): Promise<number> {
  const who = author();
  const r = await commitRequest({ repo: flags.git, branch: flags.branch, cwd: io.cwd, auth: authFromEnv() }, {
    instance,
    request: { action: `pod-${action}`, pod, args: {}, ...(flags.reason ? { reason: flags.reason } : {}) },
    ...(who ? { author: who } : {}),
  });
  io.stdout(`requested pod ${action} of ${pod} for ${instance.namespace}/${instance.name} (id ${r.id}) in commit ${r.commit.slice(0, 12)}${r.pushed ? ', pushed' : '; push it for the agent to see it'}\n`);
  return 0;
}

async function direct(io: CliIO, action: PodActionKind, instance: { namespace: string; name: string }, pod: string, flags: PodFlags, timeoutSeconds: number): Promise<number> {
  const who = author();
  const by = who ? `${who.name} <${who.email}>` : userInfo().username;
  const client = await createKubeClient({ ...(flags.kubeconfig !== undefined ? { kubeconfigPath: resolve(io.cwd, flags.kubeconfig) } : {}), ...(flags.context !== undefined ? { context: flags.context } : {}) });
  const events = new KubeEventRecorder(client, { log: (_level, message) => io.stderr(`warning: ${message}\n`) });
  const record = events.listener();
  try {
    const result = await runPodAction({
      client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client), instance, action, pods: [pod],
      reason: `requested by ${by}${flags.reason ? `: ${flags.reason}` : ''}`, by, timeoutSeconds,
      onEvent: (e) => {
        record(e);
        const line = eventLine(e);
        if (line !== undefined) io.stdout(`${line}\n`);
      },
    });
    await events.flush();
    if (result.kind === 'complete') {
      io.stdout(`pod-${action}: COMPLETE: ${result.run.state.status === 'COMPLETE' ? result.run.state.message : ''}\n`);
      return 0;
    }
    io.stdout(`pod-${action}: ${result.kind === 'failed' ? `FATAL_ERROR (${result.error.code}) ${result.error.message}` : 'stopped'}\n`);
    return 1;
  } finally {
    client.close();
  }
}
