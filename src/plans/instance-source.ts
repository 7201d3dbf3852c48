/**
 * An instance as the engine needs it, read through a FileTree (a directory for `baton apply`, a Git
 * tree at a commit for the agent): its desired state for plan selection and a render callback. Reads
 * only through the renderer's FileTree, so it does no I/O of its own.
 */
import { refOf, type ObjectRef } from '../kube/object.js';
import {
  RenderProblemsError,
  frameworkProblems,
  hasErrors,
  loadInstanceOnce,
  loadInstanceFramework,
  loadSettings,
  renderInstancePlan,
  scheduleProblems,
  type FileTree,
  type Framework,
  type FrameworkCache,
  type Instance,
  type Problem,
  type Renderer,
  type RenderedPlan,
  type RepositoryDecl,
} from '../render/index.js';
import type { KubeClient } from '../kube/client.js';
import { ConfigMapCheckpointStore } from './checkpoint-configmap.js';
import { defaultHooks } from './defaults.js';
import { desiredStateOf, type DesiredExtras } from './desired.js';
import type { EventListener } from './events.js';
import { reconcile, type ReconcileOptions, type ReconcileResult } from './reconcile.js';
import { resolveInstanceParams } from '../secrets/resolve-params.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { instanceViolations } from '../tenancy/rules.js';
import { clusterViolations } from '../clusters/rules.js';
import type { DesiredState } from './selection.js';
import { ComposeError, dependencyProblems, generatedParams, generatedSecretRef, rotationOf } from '../compose/index.js';
import { problem } from '../render/problems.js';
import { pipeObjectName, pipeTasks } from '../render/pipes.js';
import { readPipes } from '../compose/pipes/collect.js';
import { childRunner, type ChildIdentity, type ChildRunner, type ObserveChild } from '../compose/children/runner.js';

/** A composition error about the run's own input (a rotation of a parameter that is not generated, no cluster) refuses the instance, located at its file. */
async function composeProblems<T>(inst: Instance, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ComposeError) || (err.code !== 'GENERATED_ROTATE_UNKNOWN' && err.code !== 'GENERATED_NO_CLUSTER')) throw err;
    throw new RenderProblemsError([problem({ code: err.code, file: inst.file, path: [], line: 1, column: 1, message: err.message })]);
  }
}

/**
 * Where the instance may go: its tenant's rules, and a target cluster baton.yaml declares (an unknown
 * one refuses the instance, also its removal: where its objects are is not known).
 */
function placementProblems(decl: RepositoryDecl | undefined, inst: Instance): Problem[] {
  const locate = (path: (string | number)[]): { line: number; column: number } => inst.source.locate(path);
  return [
    ...instanceViolations(decl?.tenants, { file: inst.file, namespace: inst.namespace, framework: inst.decl.framework, locate }),
    ...clusterViolations(decl?.clusters, { file: inst.file, cluster: inst.decl.cluster, locate }),
  ];
}

export interface InstanceSource {
  instance: Instance;
  framework: Framework;
  desired: DesiredState;
  /** String forms of sensitive values, for masking anything shown to people. */
  sensitiveValues: string[];
  /** Warnings from loading (errors throw). */
  problems: Problem[];
  render: (plan: string, args: Record<string, string>) => Promise<RenderedPlan>;
  /** Objects the instance owns outside its plans' inventory (its generated values' Secret): deleted when it is removed. */
  ownedObjects: ObjectRef[];
  /** Instance tasks: runs and removes the instance's children (absent when the framework has none or no cluster is at hand). */
  children?: ChildRunner;
  /** Apply objects of the lifecycle plans (deploy, update, upgrade) as rendered now: what pruning keeps. */
  renderedObjects: () => Promise<ObjectRef[]>;
}

const LIFECYCLE = ['deploy', 'update', 'upgrade'];

export interface SourceOptions {
  /** Age keys and the cluster for encrypted values and valuesFrom; without them such instances are refused. */
  values?: ValuesContext;
  /** Watches each child an Instance task reconciles (the agent records the child's own status from it). */
  observeChild?: ObserveChild;
  /** The caller's framework versions by tree id (the agent's one cache, also for children); absent: loaded at every render. */
  frameworks?: FrameworkCache;
}

export async function loadInstanceSource(tree: FileTree, instanceFile: string, renderer: Renderer, extras: DesiredExtras = {}, options: SourceOptions = {}): Promise<InstanceSource> {
  const inst = await loadInstanceOnce(tree, instanceFile);
  if (!inst.ok) throw new RenderProblemsError(inst.problems);
  const fw = await loadInstanceFramework(tree, inst.value, options.frameworks);
  if (!fw.ok) throw new RenderProblemsError([...inst.problems, ...fw.problems]);
  // The same framework checks as `baton validate` (duplicate tasks or parameters, a pattern RE2 refuses,
  // an unknown trigger...): a framework validate rejects is never applied.
  const unsound = frameworkProblems(fw.value).filter((p) => p.severity === 'error');
  if (unsound.length > 0) throw new RenderProblemsError(unsound);
  // The same schedule checks as `baton validate`: a schedule that can never run is refused, not ignored.
  // Not for a removal: schedules no longer matter, and they must not keep the objects in the cluster.
  const schedules = extras.removed === true ? [] : scheduleProblems(inst.value, new Set(Object.keys(fw.value.decl.plans)));
  if (hasErrors(schedules)) throw new RenderProblemsError(schedules);
  const settings = await loadSettings(tree);
  // An invalid baton.yaml (a bad `clusters` entry...) refuses with its own located problems, before the
  // placement checks could blame the instance (an unknown cluster when `clusters` did not load).
  if (!settings.ok) throw new RenderProblemsError(settings.problems);
  const placement = placementProblems(settings.value.decl, inst.value);
  if (hasErrors(placement)) throw new RenderProblemsError(placement);
  // dependsOn: a missing instance, a cycle or a dependency the tenant may not reach refuses the instance (not its removal).
  const dependencies = extras.removed === true ? [] : await dependencyProblems(tree, inst.value, settings.value.decl.tenants);
  if (hasErrors(dependencies)) throw new RenderProblemsError(dependencies);
  // Values are resolved once per run (a valuesFrom Secret is read once), then every render uses them.
  // A removal must not be held up by a Secret that is gone meanwhile: what cannot be read gets placeholders.
  // A run asking for `rotate-generated` regenerates those generated values (once per request id).
  const rotation = extras.removed === true ? undefined : rotationOf(extras.request?.id, extras.request?.args);
  const resolved = await composeProblems(inst.value, () => resolveInstanceParams(tree, inst.value, fw.value, { ...options.values, lenient: extras.removed === true, ...(rotation ? { rotation } : {}) }));
  if (hasErrors(resolved.problems)) throw new RenderProblemsError(resolved.problems);
  // Pipe outputs are read at every render: a Pipe step re-renders the plan once its Job's output is in.
  const pipeDecls = pipeTasks(fw.value).map((t) => ({ task: t.name, kind: t.pipe.kind, name: pipeObjectName(inst.value.name, t.name) }));
  const cluster = options.values?.cluster;
  const initialPipes = cluster && pipeDecls.length > 0 ? await readPipes(cluster, inst.value, pipeDecls) : { values: {}, secrets: [] };
  const render = async (plan: string, args: Record<string, string>): Promise<RenderedPlan> => {
    const pipes = cluster && pipeDecls.length > 0 ? (await readPipes(cluster, inst.value, pipeDecls)).values : initialPipes.values;
    const result = await renderInstancePlan(tree, instanceFile, { plan, args, renderer, resolved, pipes, ...(options.frameworks ? { frameworks: options.frameworks } : {}) });
    if (!result.ok) throw new RenderProblemsError(result.problems);
    return result.plan;
  };
  const plans = Object.keys(fw.value.decl.plans);
  const lifecycle = async <T>(pick: (plan: RenderedPlan) => T[]): Promise<T[]> => {
    const out: T[] = [];
    for (const name of LIFECYCLE.filter((p) => plans.includes(p))) out.push(...pick(await render(name, {})));
    return out;
  };
  const hasChildren = fw.value.decl.tasks.some((t) => t.kind === 'Instance');
  const children = hasChildren && cluster ? childRunner({
    client: cluster,
    tree,
    parent: { namespace: inst.value.namespace, name: inst.value.name, file: inst.value.file },
    load: (childTree, file, childExtras) => loadInstanceSource(childTree, file, renderer, childExtras, options),
    reconcile: (child, onEvent, loaded) => reconcileSource(cluster, child, onEvent, loaded ? { loaded } : {}),
    lifecycleChildren: () => lifecycle((p) => p.phases.flatMap((ph) => ph.steps.flatMap((s) => s.children ?? []))),
    now: () => new Date(),
    // A child's parameters come from the parent's values: mask the parent's sensitive values in its records too.
    ...(options.observeChild ? { observe: (c: ChildIdentity) => options.observeChild?.({ ...c, sensitiveValues: [...c.sensitiveValues, ...resolved.sensitiveValues, ...initialPipes.secrets] }) } : {}),
  }) : undefined;
  return {
    instance: inst.value,
    framework: fw.value,
    // Parameters made sensitive by where their value came from are stored hashed like declared ones.
    desired: desiredStateOf({ ...fw.value, params: resolved.decls }, resolved.values, extras),
    sensitiveValues: [...resolved.sensitiveValues, ...initialPipes.secrets],
    problems: [...inst.problems, ...fw.problems, ...schedules, ...resolved.problems],
    render,
    ownedObjects: [
      ...pipeDecls.map((p) => ({ apiVersion: 'v1', kind: p.kind, namespace: inst.value.namespace, name: p.name })),
      ...(generatedParams(fw.value.params).length > 0 ? [generatedSecretRef(inst.value)] : []),
    ],
    ...(children ? { children } : {}),
    renderedObjects: () => lifecycle((plan) => plan.phases.flatMap((ph) => ph.steps.flatMap((s) => s.actions.flatMap((a) => (a.action === 'apply' ? [refOf(a.object)] : []))))),
  };
}

/**
 * One reconcile of a loaded instance with the standard wiring (cluster checkpoint ConfigMap, the real
 * gates and failure classes), as `baton apply` and `baton test` run it.
 */
export function reconcileSource(client: KubeClient, source: InstanceSource, onEvent?: EventListener, extra: Pick<ReconcileOptions, 'retryNow' | 'loaded'> = {}): Promise<ReconcileResult> {
  return reconcile({
    client,
    store: new ConfigMapCheckpointStore(client),
    hooks: defaultHooks(),
    instance: { name: source.instance.name, namespace: source.instance.namespace },
    framework: source.framework.name,
    desired: source.desired,
    render: source.render,
    renderedObjects: source.renderedObjects,
    ownedObjects: source.ownedObjects,
    children: source.children,
    ...(onEvent ? { onEvent } : {}),
    sensitiveValues: source.sensitiveValues,
    ...extra,
  });
}
