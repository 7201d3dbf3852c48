/**
 * `baton apply <instance-file>`: runs one plan of an instance against a cluster without Git, through
 * the same `reconcile` the agent calls. Without --plan the plan is chosen by the selection rules
 * against the checkpoint in the cluster.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../conventions.js';
import { Command, InvalidArgumentError } from 'commander';
import { errorMessage } from '../../errors.js';
import type { InstanceKey } from '../../plans/checkpoint.js';
import { connectTarget, targetDecl, type TargetClients } from './apply-target.js';
import { targetText, type ClusterTarget } from '../../clusters/index.js';
import type { KubeClient } from '../../kube/client.js';
import type { DesiredExtras } from '../../plans/desired.js';
import type { EngineEvent } from '../../plans/events.js';
import { loadInstanceSource, reconcileSource, type InstanceSource } from '../../plans/instance-source.js';
import { KubeEventRecorder } from '../../plans/kube-events.js';
import { eventLine, exitCodeOf, resultLine } from '../../plans/progress-text.js';
import type { ReconcileResult } from '../../plans/reconcile.js';
import { DirectoryTree, maskSensitive, parseDuration, problemLocation, RenderProblemsError, Renderer, type FileTree } from '../../render/index.js';
import type { ValuesContext } from '../../secrets/instance-values.js';
import { dependencyRefusal, gateOnDependencies, type DependencyPolicy } from './apply-dependencies.js';
import type { CliIO } from '../io.js';
import { loadLocalAgeKeys } from '../../secrets/index.js';

export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  /** `--cluster NAME` (apply-target.ts); absent for commands without it. */
  cluster?: string;
  repo?: string;
  output: 'text' | 'json';
  /** false from --no-events (apply and delete). */
  events?: boolean;
}

interface ApplyFlags extends ClusterFlags {
  plan?: string;
  arg: string[];
  waitForDependencies?: string;
  ignoreDependencies?: boolean;
}

export function registerApply(program: Command, io: CliIO): void {
  withTargetFlag(withClusterFlags(program.command('apply')))
    .description('Run one plan of an instance against a cluster, without Git (plan chosen like the agent unless --plan)')
    .argument('<instance-file>', 'instances/<namespace>/<instance>.yaml')
    .option('--plan <name>', 'run this plan now instead of the one the selection rules choose')
    .option('--arg <key=value>', 'one-shot argument for the plan (repeatable)', collectArg, [])
    .option('--no-events', 'do not record Kubernetes Events for the plan')
    .option('--wait-for-dependencies <duration>', 'wait up to this long (90s, 10m) for the instances it dependsOn to be applied and healthy; without it, apply refuses at once while one is not')
    .option('--ignore-dependencies', 'run even when an instance it dependsOn is not applied and healthy')
    .action(async (file: string, flags: ApplyFlags) => {
      const args = Object.fromEntries(flags.arg.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
      if (flags.plan === undefined && flags.arg.length > 0) throw new UsageError('--arg needs --plan');
      const extras: DesiredExtras = flags.plan !== undefined ? { request: { id: `cli-${randomUUID()}`, plan: flags.plan, args, explicit: true } } : {};
      io.exitCode = await runReconcile(io, file, flags, extras, dependencyPolicyOf(flags));
    });
}

/** The flags `apply`, `delete` and `plan status` share. */
export function withClusterFlags(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current-context)')
    .option('--repo <dir>', 'repository root (default: the repository containing the instance file)')
    .option('-o, --output <format>', 'text or json', parseOutput, 'text');
}

/** `--cluster NAME` of the commands that act on an instance file (apply-target.ts, docs/clusters.md). */
export function withTargetFlag(cmd: Command): Command {
  return cmd.option('--cluster <name>', "a baton.yaml cluster for an instance that names none (one that names its cluster goes there)");
}

function dependencyPolicyOf(flags: ApplyFlags): DependencyPolicy {
  if (flags.ignoreDependencies === true && flags.waitForDependencies !== undefined) throw new UsageError('--wait-for-dependencies and --ignore-dependencies exclude each other');
  if (flags.ignoreDependencies === true) return { kind: 'ignore' };
  if (flags.waitForDependencies === undefined) return { kind: 'check', waitSeconds: 0 };
  const waitSeconds = parseDuration(flags.waitForDependencies);
  if (waitSeconds === undefined) throw new UsageError(`--wait-for-dependencies ${JSON.stringify(flags.waitForDependencies)}: expected a duration such as 90s, 10m or 1h`);
  return { kind: 'check', waitSeconds };
}

/**
 * Runs the plan the selection rules (or the request in `extras`) choose. `dependencies`: whether
 * instances it dependsOn must be ready first (apply); removals and control commands never wait.
 */
export async function runReconcile(io: CliIO, file: string, flags: ClusterFlags, extras: DesiredExtras, dependencies: DependencyPolicy = { kind: 'ignore' }): Promise<number> {
  return withInstance(io, file, flags, extras, async (source, client, context) => {
    // Suspended (docs/operations.md): nothing is applied, by the agent or here. Deleting still proceeds.
    if (extras.removed !== true && source.instance.decl.suspend === true) return fail(io, suspendedText(file, source));
    const mask = <T>(v: T): T => maskSensitive(v, source.sensitiveValues);
    const print = progressPrinter(io, flags.output === 'text', mask);
    for (const p of source.problems) print.line(`warning: ${p.file}:${p.line}: ${p.message}`);
    if (context.target !== undefined) print.line(`target: ${context.target}`);
    const gate = await gateOnDependencies({ source, client, ...context, policy: dependencies, onWaiting: (text) => print.line(mask(text)) });
    if (!gate.ready) {
      const refusal = dependencyRefusal(file, gate, dependencies.kind === 'check' ? dependencies.waitSeconds : 0);
      print.done();
      if (flags.output === 'json') io.stdout(`${JSON.stringify(mask({ instance: instanceJson(source), exitCode: 1, kind: 'refused', refusal }), null, 2)}\n`);
      else io.stderr(`error: ${mask(refusal.message)}\n`);
      return 1;
    }
    // Kubernetes Events as the agent records them; a warning (not a failure) when RBAC forbids them.
    // (On stderr, so that `-o json` output stays JSON.)
    const events = flags.events !== false ? new KubeEventRecorder(client, { log: (_level, message) => io.stderr(`warning: ${mask(message)}\n`) }) : undefined;
    const record = events?.listener(() => source.sensitiveValues);
    // A person running apply asks for the desired state now: a failed one is retried at once.
    const result = await reconcileSource(client, source, record ? (e) => { print.event(e); record(e); } : print.event, { retryNow: true });
    await events?.flush();
    print.done();
    if (flags.output === 'json') io.stdout(`${JSON.stringify(mask({ ...resultJson(source, result), ...(context.cluster ? { cluster: context.cluster } : {}) }), null, 2)}\n`);
    else io.stdout(`${mask(resultLine(result))}\n`);
    return exitCodeOf(result);
  });
}

/** What `withInstance` loaded the instance with: the repository on disk, the renderer, the values context. */
export interface InstanceContext {
  tree: FileTree;
  renderer: Renderer;
  values: ValuesContext;
  /** The reader of a dependency's own cluster (docs/clusters.md). */
  readerFor: (key: InstanceKey) => KubeClient | undefined;
  /** The baton.yaml cluster acted on, in words; undefined for the own cluster. */
  target?: string;
  /** The same as data (`-o json`: `cluster`). */
  cluster?: ClusterTarget;
}

/** Loads the instance (rendering nothing yet), connects, runs `fn`, and always releases both. */
export async function withInstance(
  io: CliIO,
  file: string,
  flags: ClusterFlags,
  extras: DesiredExtras,
  fn: (source: InstanceSource, client: KubeClient, context: InstanceContext) => Promise<number>,
): Promise<number> {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) return fail(io, `${file}: no such file`);
  const root = flags.repo !== undefined ? resolve(io.cwd, flags.repo) : repoRootOf(path);
  if (root === undefined) return fail(io, `${file}: not under instances/<namespace>/ of a repository; pass --repo`);
  const renderer = new Renderer();
  const tree = new DirectoryTree(root);
  const rel = relative(root, path).split(sep).join('/');
  let target: TargetClients | undefined;
  try {
    // The instance's cluster through baton.yaml, as the agent resolves it (apply-target.ts).
    target = await connectTarget(await targetDecl(tree, rel, flags), flags, io.cwd, tree);
    const client = target.client;
    // Encrypted values with the user's age keys ($SOPS_AGE_KEY_FILE, $SOPS_AGE_KEY, sops' default file); valuesFrom from the cluster.
    const keys = await loadLocalAgeKeys({ defaultFile: true }, process.env);
    const values = { keys, cluster: client };
    const source = await loadInstanceSource(tree, rel, renderer, extras, { values });
    await target.prepareReaders(source.instance);
    return await fn(source, client, { tree, renderer, values, readerFor: target.readerFor, ...(target.target !== undefined ? { target: targetText(target.target), cluster: target.target } : {}) });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof RenderProblemsError) {
      for (const p of err.problems) io.stderr(`${problemLocation(p)}: ${p.severity} ${p.code}: ${p.message}\n`);
      return 1;
    }
    return fail(io, errorMessage(err));
  } finally {
    target?.close();
    await renderer.close();
  }
}

/** Why nothing is applied to a suspended instance, and how to go on. */
export function suspendedText(file: string, source: InstanceSource): string {
  const { namespace, name } = source.instance;
  return `${file}: suspend: true: ${namespace}/${name} is suspended, nothing is applied (remove suspend: true, or set it to false, to apply)`;
}

/** The repository holding `instances/<namespace>/<file>` at `path` (undefined: not such a path). */
export function repoRootOf(path: string): string | undefined {
  const nsDir = dirname(path);
  const instancesDir = dirname(nsDir);
  return basename(instancesDir) === 'instances' ? dirname(instancesDir) : undefined;
}

function fail(io: CliIO, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 1;
}

/** Live progress: plain lines when not a TTY; on a TTY the "waiting on" line is rewritten in place. */
function progressPrinter(io: CliIO, enabled: boolean, mask: <T>(v: T) => T): { event: (e: EngineEvent) => void; line: (text: string) => void; done: () => void } {
  let transient = false;
  const out = (text: string, overwrite: boolean): void => {
    if (!enabled) return;
    if (io.isTTY && transient) io.stdout('\r\x1b[2K');
    io.stdout(io.isTTY && overwrite ? text : `${text}\n`);
    transient = io.isTTY && overwrite;
  };
  return {
    event: (e) => {
      const text = eventLine(e);
      if (text !== undefined) out(mask(text), e.type === 'step-waiting');
    },
    line: (text) => out(text, false),
    done: () => {
      if (transient) io.stdout('\n');
      transient = false;
    },
  };
}

function instanceJson(source: InstanceSource): Record<string, string> {
  return { name: source.instance.name, namespace: source.instance.namespace, framework: source.framework.name, version: source.framework.version };
}

function resultJson(source: InstanceSource, result: ReconcileResult): Record<string, unknown> {
  return { instance: instanceJson(source), exitCode: exitCodeOf(result), ...result };
}

function collectArg(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*=/.test(value)) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return [...previous, value];
}

function parseOutput(value: string): 'text' | 'json' {
  if (value !== 'text' && value !== 'json') throw new InvalidArgumentError('expected text or json');
  return value;
}
