/**
 * `baton plan status <namespace/instance | instance-file>`: the engine's checkpoint from the cluster;
 * with `--git REPO`, the status the agent committed to Git (and, when a cluster is also named with
 * --kubeconfig/--context, the checkpoint too: it is newer while the agent has not pushed yet).
 */
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import jsYaml from 'js-yaml';
import { errorMessage } from '../../errors.js';
import { createKubeClient } from '../../kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import type { Checkpoint } from '../../plans/checkpoint.js';
import { checkpointText } from '../../plans/status-text.js';
import { readGitStatus, type GitStatusResult } from '../../sync/read-status.js';
import type { CliIO } from '../io.js';
import { withClusterFlags, type ClusterFlags } from './apply.js';

interface StatusFlags extends ClusterFlags {
  git?: string;
  branch: string;
  statusBranch?: string;
}

type Key = { namespace: string; name: string };

export function registerPlanStatus(plan: Command, io: CliIO): void {
  withClusterFlags(plan.command('status'))
    .description('Show the plan status of an instance: its checkpoint in the cluster, or with --git the status the agent committed')
    .argument('<instance>', 'namespace/instance, or an instances/<namespace>/<instance>.yaml file')
    .option('--git <url|path>', 'read the status the agent committed to this repository (URL or path) instead of the cluster')
    .option('--branch <name>', 'with --git: the branch the agent watches', 'main')
    .option('--status-branch <name>', 'with --git: the branch the agent commits status to (its --status-branch)')
    .action(async (target: string, flags: StatusFlags) => {
      const key = instanceKeyOf(target);
      if (key === undefined) {
        io.stderr(`error: ${target}: expected namespace/instance or instances/<namespace>/<instance>.yaml\n`);
        io.exitCode = 2;
        return;
      }
      try {
        io.exitCode = flags.git === undefined ? await clusterOnly(io, key, flags) : await fromGit(io, key, flags, flags.git);
      } catch (err) {
        io.stderr(`error: ${errorMessage(err)}\n`);
        io.exitCode = 1;
      }
    });
}

async function loadCheckpoint(key: Key, flags: ClusterFlags): Promise<Checkpoint | undefined> {
  const client = await createKubeClient({ ...(flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  try {
    return (await new ConfigMapCheckpointStore(client).load(key))?.checkpoint;
  } finally {
    client.close();
  }
}

async function clusterOnly(io: CliIO, key: Key, flags: ClusterFlags): Promise<number> {
  const checkpoint = await loadCheckpoint(key, flags);
  if (checkpoint === undefined) {
    io.stderr(`instance ${key.namespace}/${key.name}: no checkpoint in the cluster (never applied, or deleted)\n`);
    return 1;
  }
  io.stdout(flags.output === 'json' ? `${JSON.stringify(checkpoint, null, 2)}\n` : checkpointText(checkpoint));
  return 0;
}

async function fromGit(io: CliIO, key: Key, flags: StatusFlags, repo: string): Promise<number> {
  const git: GitStatusResult = await readGitStatus({ repo, branch: flags.branch, cwd: io.cwd, ...(flags.statusBranch ? { statusBranch: flags.statusBranch } : {}) }, key);
  // The cluster is consulted too only when one is named explicitly: --git alone works without a cluster.
  const checkpoint = flags.kubeconfig !== undefined || flags.context !== undefined ? await loadCheckpoint(key, flags) : undefined;
  if (flags.output === 'json') {
    io.stdout(`${JSON.stringify({ git, ...(checkpoint ? { cluster: checkpoint } : {}) }, null, 2)}\n`);
  } else {
    if (git.found) io.stdout(`# ${git.file} at ${git.commit.slice(0, 12)} (updated ${git.status.updatedAt})\n${jsYaml.dump(git.status, { noRefs: true, lineWidth: -1 })}`);
    else io.stderr(`${git.reason}\n`);
    if (checkpoint) io.stdout(`\n# the cluster checkpoint (newer while the agent has not pushed yet)\n${checkpointText(checkpoint)}`);
  }
  return git.found ? 0 : 1;
}

function instanceKeyOf(target: string): Key | undefined {
  if (/\.ya?ml$/.test(target)) return { namespace: basename(dirname(target)), name: basename(target).replace(/\.ya?ml$/, '') };
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(target);
  return m?.[1] && m[2] ? { namespace: m[1], name: m[2] } : undefined;
}
