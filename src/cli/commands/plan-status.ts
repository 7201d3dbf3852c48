/**
 * `baton plan status <namespace/instance | instance-file>`: the engine's checkpoint from the instance's
 * target cluster, resolved as `baton apply` resolves it (apply-target.ts: the file's `cluster:` through
 * baton.yaml, `--cluster NAME` for one that names none; without a local file, the own cluster or
 * `--cluster`); with `--git REPO`, the status the agent committed to Git (and, when a cluster is also
 * named with --kubeconfig/--context/--cluster, the checkpoint too: it is newer while the agent has not
 * pushed yet).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import jsYaml from 'js-yaml';
import { targetText, type ClusterTarget } from '../../clusters/index.js';
import { errorMessage } from '../../errors.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import type { Checkpoint } from '../../plans/checkpoint.js';
import { checkpointText } from '../../plans/status-text.js';
import { DirectoryTree, RenderProblemsError, loadInstance, problemLocation } from '../../render/index.js';
import { readGitStatus, type GitStatusResult } from '../../sync/read-status.js';
import { UsageError } from '../conventions.js';
import type { CliIO } from '../io.js';
import { repoRootOf, withClusterFlags, withTargetFlag, type ClusterFlags } from './apply.js';
import { connectTarget, targetDecl, type TargetFlags } from './apply-target.js';
import { instanceFileOf } from './plan-check.js';

interface StatusFlags extends ClusterFlags, TargetFlags {
  git?: string;
  branch: string;
  statusBranch?: string;
}

type Key = { namespace: string; name: string };

export function registerPlanStatus(plan: Command, io: CliIO): void {
  withTargetFlag(withClusterFlags(plan.command('status')))
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
        io.exitCode = flags.git === undefined ? await clusterOnly(io, target, key, flags) : await fromGit(io, target, key, flags, flags.git);
      } catch (err) {
        if (err instanceof UsageError) {
          io.stderr(`error: ${err.message}\n`);
          io.exitCode = 2;
          return;
        }
        if (err instanceof RenderProblemsError) for (const p of err.problems) io.stderr(`${problemLocation(p)}: ${p.severity} ${p.code}: ${p.message}\n`);
        else io.stderr(`error: ${errorMessage(err)}\n`);
        io.exitCode = 1;
      }
    });
}

/**
 * The checkpoint in the instance's target cluster, and that cluster when it is a baton.yaml one. The
 * instance file (a path, or `instances/<ns>/<name>.yaml` under --repo or here) says its `cluster:`;
 * without the file, the own cluster unless --cluster names one (then baton.yaml is read under --repo or here).
 */
async function loadCheckpoint(io: CliIO, target: string, key: Key, flags: StatusFlags): Promise<{ checkpoint: Checkpoint | undefined; where: ClusterTarget | undefined }> {
  const file = instanceFileOf(target, flags, io.cwd);
  const path = file === undefined ? undefined : resolve(io.cwd, file);
  const local = path !== undefined && existsSync(path);
  const root = flags.repo !== undefined ? resolve(io.cwd, flags.repo) : (local ? repoRootOf(path) : undefined) ?? io.cwd;
  const tree = new DirectoryTree(root);
  const rel = local ? relative(root, path).split(sep).join('/') : undefined;
  const decl = rel !== undefined || flags.cluster !== undefined ? await targetDecl(tree, rel, flags) : undefined;
  if (decl === undefined && rel !== undefined) {
    // A file naming a cluster baton.yaml does not declare: the agent refuses it (CLUSTER_UNKNOWN), so it is in no cluster.
    const inst = await loadInstance(tree, rel);
    const named = inst.ok ? inst.value.decl.cluster : undefined;
    if (named !== undefined) throw new Error(`${file ?? rel} says cluster: ${named}, which baton.yaml does not declare (CLUSTER_UNKNOWN): the agent refuses the instance and applies it nowhere; baton validate shows it`);
  }
  const clients = await connectTarget(decl, flags, io.cwd, tree);
  try {
    return { checkpoint: (await new ConfigMapCheckpointStore(clients.client).load(key))?.checkpoint, where: clients.target };
  } finally {
    clients.close();
  }
}

async function clusterOnly(io: CliIO, target: string, key: Key, flags: StatusFlags): Promise<number> {
  const { checkpoint, where } = await loadCheckpoint(io, target, key, flags);
  if (checkpoint === undefined) {
    io.stderr(`instance ${key.namespace}/${key.name}: ${where?.name !== undefined ? `no checkpoint in cluster ${where.name} (never applied there, or deleted)` : 'no checkpoint in the cluster (never applied, or deleted)'}\n`);
    return 1;
  }
  if (flags.output === 'json') io.stdout(`${JSON.stringify(checkpoint, null, 2)}\n`);
  else io.stdout(`${where !== undefined ? `target: ${targetText(where)}\n` : ''}${checkpointText(checkpoint)}`);
  return 0;
}

async function fromGit(io: CliIO, target: string, key: Key, flags: StatusFlags, repo: string): Promise<number> {
  const git: GitStatusResult = await readGitStatus({ repo, branch: flags.branch, cwd: io.cwd, ...(flags.statusBranch ? { statusBranch: flags.statusBranch } : {}) }, key);
  // The cluster is consulted too only when one is named explicitly: --git alone works without a cluster.
  const named = flags.kubeconfig !== undefined || flags.context !== undefined || flags.cluster !== undefined;
  const checkpoint = named ? (await loadCheckpoint(io, target, key, flags)).checkpoint : undefined;
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
