/**
 * `baton plan pause|resume|stop|retry|restart|force-complete|continue <namespace/instance>`: operators
 * in control of plans (docs/operations.md). Two ways, one set of rules (src/control/):
 * - GitOps (default): a commit appends the request to requests/<namespace>/<instance>.yaml; the agent
 *   carries it out and records it. The command checks it first against the framework and, when the
 *   agent's status file is on the branch, against the plan's state there: a request that cannot be
 *   carried out is refused (exit 1) and nothing is committed.
 * - Direct (--direct, --kubeconfig or --context): the request is carried out on the checkpoint in the
 *   cluster at once, and a plan it lets go on runs here, like `baton apply` (--repo <dir>: the
 *   repository folder holding the instance file). The flags are read as for `baton pod` (request-mode.ts).
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { carryOutRequests, HANDLERS, RequestRefusedError, type ControlRequest } from '../../control/index.js';
import { BatonError, errorMessage } from '../../errors.js';
import type { CommitTree } from '../../git/tree.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import { emptyCheckpoint } from '../../plans/checkpoint.js';
import { KubeEventRecorder } from '../../plans/kube-events.js';
import { loadInstance, loadInstanceFramework, maskSensitive, type RequestAction } from '../../render/index.js';
import { authFromEnv } from '../../sync/repo-access.js';
import { commitRequest, type RequestInput } from '../../sync/request-commit.js';
import { requestPath } from '../../sync/request-file.js';
import { parseStatus, statusPath } from '../../sync/status-file.js';
import type { CliIO } from '../io.js';
import { runReconcile, suspendedText, withClusterFlags, withInstance, type ClusterFlags } from './apply.js';
import { instanceFileOf } from './plan-check.js';
import { requestMode } from '../request-mode.js';

interface ControlFlags extends ClusterFlags {
  direct?: boolean;
  git: string;
  plan?: string;
  phase?: string;
  step?: string;
  reason?: string;
  branch: string;
}

interface Spec {
  action: RequestAction;
  description: string;
  /** phase/step flags: absent, optional, or required. */
  target?: 'optional' | 'required';
  reasonRequired?: boolean;
  /** After it is carried out directly, the plan runs on here (like `baton apply`). */
  runsPlan: boolean;
}

const SPECS: Spec[] = [
  { action: 'pause', description: 'Pause the running plan: the running step\'s applies finish, nothing more starts until resume', runsPlan: false },
  { action: 'resume', description: 'Resume a paused plan', runsPlan: true },
  { action: 'stop', description: 'Stop the running plan: it ends STOPPED, its state is kept', runsPlan: false },
  { action: 'retry', description: 'Re-run a failed (or stopped) plan from where it failed; completed steps are not run again', runsPlan: true },
  { action: 'restart', description: 'Run a plan again: all of it, one phase (--phase) or one step (--phase --step)', target: 'optional', runsPlan: true },
  { action: 'force-complete', description: 'Mark a step done without running it (--reason is required and recorded)', target: 'required', reasonRequired: true, runsPlan: true },
  { action: 'continue', description: 'Let a plan waiting at a canary step go on to the next step', runsPlan: true },
];

export function registerPlanControl(plan: Command, io: CliIO): void {
  for (const spec of SPECS) {
    let cmd = withClusterFlags(plan.command(spec.action))
      .description(`${spec.description}. Commits a request for the agent; with --kubeconfig/--context acts on the cluster directly`)
      .argument('<instance>', 'namespace/instance')
      .option('--plan <name>', 'the plan (default: the running plan, or the last one)')
      .option('--git <url|path>', 'Git repository: a working clone commits locally (you push); a URL or bare repository is pushed', '.')
      .option('--branch <name>', 'branch the agent watches (Git mode)', 'main')
      .option('--direct', 'act on the cluster now (default kubeconfig) instead of committing a request for the agent');
    if (spec.target !== undefined) cmd = cmd.option('--phase <name>', `phase${spec.target === 'required' ? ' (required)' : ''}`).option('--step <name>', `step within --phase${spec.target === 'required' ? ' (required)' : ''}`);
    cmd = cmd.option('--reason <text>', `why${spec.reasonRequired ? ' (required)' : ''}: recorded in status, history and Events`);
    cmd.action(async (target: string, flags: ControlFlags, self: Command) => {
      io.exitCode = await runControl(io, spec, target, flags, requestMode(self, io, flags));
    });
  }
}

async function runControl(io: CliIO, spec: Spec, target: string, flags: ControlFlags, how: ReturnType<typeof requestMode>): Promise<number> {
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(target);
  if (!m?.[1] || !m[2]) return usage(io, `${target}: expected <namespace>/<instance>`);
  if (spec.target === 'required' && (flags.phase === undefined || flags.step === undefined)) return usage(io, `${spec.action} needs --phase and --step`);
  if (flags.step !== undefined && flags.phase === undefined) return usage(io, '--step needs --phase');
  if (spec.reasonRequired === true && (flags.reason === undefined || flags.reason.trim() === '')) return usage(io, `${spec.action} needs --reason (it is recorded with the step)`);
  const instance = { namespace: m[1], name: m[2] };
  const request: RequestInput = {
    action: spec.action, args: {},
    ...(flags.plan ? { plan: flags.plan } : {}), ...(flags.phase ? { phase: flags.phase } : {}), ...(flags.step ? { step: flags.step } : {}), ...(flags.reason ? { reason: flags.reason } : {}),
  };
  try {
    return how.mode === 'direct' ? await directly(io, spec, instance, request, flags) : await throughGit(io, instance, request, { ...flags, git: how.git });
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return 1;
  }
}

function usage(io: CliIO, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 2;
}

function author(): { name: string; email: string } | undefined {
  const { BATON_AUTHOR_NAME: name, BATON_AUTHOR_EMAIL: email } = process.env;
  return name && email ? { name, email } : undefined;
}

async function throughGit(io: CliIO, instance: { namespace: string; name: string }, request: RequestInput, flags: ControlFlags): Promise<number> {
  const who = author();
  const result = await commitRequest({ repo: flags.git, branch: flags.branch, cwd: io.cwd, auth: authFromEnv() }, {
    instance, request, ...(who ? { author: who } : {}),
    check: (tree, r) => checkAgainstRepository(tree, instance, { ...r, via: 'git' }),
  });
  io.stdout(`requested ${request.action} for ${instance.namespace}/${instance.name} (id ${result.id}) in commit ${result.commit.slice(0, 12)}${result.pushed ? ', pushed' : '; push it for the agent to see it'}\n`);
  return 0;
}

/**
 * The request checked before it is committed: the plan, phase and step exist in the framework, and,
 * when the agent's status file is on the branch, the plan's state there allows it (the agent checks
 * again when it carries it out: the status may be behind).
 */
async function checkAgainstRepository(tree: CommitTree, instance: { namespace: string; name: string }, request: ControlRequest): Promise<void> {
  const file = (await tree.id(`instances/${instance.namespace}/${instance.name}.yaml`)) !== undefined ? `instances/${instance.namespace}/${instance.name}.yaml` : `instances/${instance.namespace}/${instance.name}.yml`;
  const inst = await loadInstance(tree, file);
  if (!inst.ok) throw new BatonError('INSTANCE_INVALID', `${file} does not load: ${inst.problems[0]?.message ?? 'invalid'}`);
  const fw = await loadInstanceFramework(tree, inst.value);
  if (!fw.ok) throw new BatonError('FRAMEWORK_INVALID', `the framework of ${file} does not load: ${fw.problems[0]?.message ?? 'invalid'}`);
  const plans = fw.value.decl.plans;
  const names = Object.keys(plans);
  if (request.plan !== undefined && !names.includes(request.plan)) throw new RequestRefusedError('PLAN_UNKNOWN', `${instance.namespace}/${instance.name} has no plan "${request.plan}" (plans: ${names.sort().join(', ')})`);
  const text = await tree.readText(statusPath(instance));
  if (text === undefined) {
    const plan = request.plan !== undefined ? plans[request.plan] : undefined;
    const phase = request.phase !== undefined ? plan?.phases.find((p) => p.name === request.phase) : undefined;
    if (plan && request.phase !== undefined && phase === undefined) throw new RequestRefusedError('PHASE_UNKNOWN', `plan ${request.plan} has no phase "${request.phase}" (phases: ${plan.phases.map((p) => p.name).join(', ')})`);
    if (phase && request.step !== undefined && !phase.steps.some((s) => s.name === request.step)) throw new RequestRefusedError('STEP_UNKNOWN', `phase ${request.phase} has no step "${request.step}" (steps: ${phase.steps.map((s) => s.name).join(', ')})`);
    return;
  }
  await checkAgainstStatus(tree, instance, request, { text, framework: fw.value.name, plans: names });
}

/** The plan's state in the agent's status file allows the request (the status holds the current or last run in full). */
async function checkAgainstStatus(tree: CommitTree, instance: { namespace: string; name: string }, request: ControlRequest, at: { text: string; framework: string; plans: string[] }): Promise<void> {
  const status = parseStatus(at.text, statusPath(instance));
  // The agent has not looked at the request file on the branch yet (a restart committed a moment ago
  // may be about to start a plan): refused all the same (two requests for one plan in one look would
  // conflict), saying so, so the operator tries again once the agent has looked.
  const behind = (await tree.id(requestPath(instance))) !== status.observed.request;
  const handler = HANDLERS[request.action];
  // Other plans' runs are in the status only as summaries.
  if (handler === undefined || status.currentPlan === undefined || (request.plan !== undefined && request.plan !== status.currentPlan.plan)) return;
  const checkpoint = { ...emptyCheckpoint(instance, at.framework), active: status.currentPlan };
  try {
    await handler.handle({ instance, checkpoint, plans: at.plans, now: new Date().toISOString() }, request);
  } catch (err) {
    if (!behind || !(err instanceof RequestRefusedError)) throw err;
    throw new RequestRefusedError(err.refusal, `${err.message} (so says ${statusPath(instance)}; the agent has not yet carried out the newest requests of ${requestPath(instance)}: try again once it has)`);
  }
}

async function directly(io: CliIO, spec: Spec, instance: { namespace: string; name: string }, request: RequestInput, flags: ControlFlags): Promise<number> {
  const file = instanceFileOf(`${instance.namespace}/${instance.name}`, flags, io.cwd);
  if (file === undefined) return usage(io, 'expected <namespace>/<instance>');
  const who = author();
  const by = who ? `${who.name} <${who.email}>` : `${userInfo().username} (direct)`;
  const id = `d-${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
  let suspended: string | undefined;
  const code = await withInstance(io, file, flags, {}, async (source, client) => {
    if (source.instance.decl.suspend === true) suspended = suspendedText(file, source);
    const events = flags.events !== false ? new KubeEventRecorder(client, { log: (_l, message) => io.stderr(`warning: ${message}\n`) }) : undefined;
    const record = events?.listener(() => source.sensitiveValues);
    const result = await carryOutRequests({
      store: new ConfigMapCheckpointStore(client), instance, plans: source.desired.plans, now: new Date().toISOString(), client,
      requests: [{ ...request, id, via: 'direct', requestedBy: by, requestedAt: new Date().toISOString() }],
      ...(record ? { emit: record } : {}), mask: (t) => maskSensitive(t, source.sensitiveValues),
    });
    await events?.flush();
    if (result.checkpoint === undefined) {
      io.stderr(`error: ${instance.namespace}/${instance.name} has no checkpoint in the cluster: no plan has run for it yet\n`);
      return 1;
    }
    const done = result.records[0];
    if (done === undefined) return 1;
    if (done.result === 'refused') {
      io.stderr(`error: ${spec.action} refused (${done.code ?? 'REFUSED'}): ${done.message}\n`);
      return 1;
    }
    io.stdout(`${done.message} (request ${done.id})\n`);
    return 0;
  });
  if (code !== 0 || !spec.runsPlan) return code;
  if (suspended !== undefined) {
    io.stdout(`the plan goes on once the instance is no longer suspended (${suspended})\n`);
    return 0;
  }
  // The plan goes on here, as `baton apply` would run it.
  return runReconcile(io, file, flags, {});
}
