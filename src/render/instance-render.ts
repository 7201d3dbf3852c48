/**
 * The one-call entry point for "render plan P of the instance in file F of this repository", used by
 * `baton render`, the agent and previews: loads settings, the instance and its framework version,
 * resolves the values and renders the plan.
 */
import type { Framework, Instance, Loaded, RepositorySettings } from './model.js';
import { renderPlan, type RenderResult } from './plan.js';
import { hasErrors, problem, type Problem } from './problems.js';
import type { FrameworkCache } from './framework-cache.js';
import { InstanceCache } from './instance-cache.js';
import { loadFramework, loadSettings } from './repository.js';
import type { Renderer } from './sandbox/renderer.js';
import type { FileTree } from './tree.js';
import { resolveInstanceParams, type InstanceParams } from '../secrets/resolve-params.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { instanceViolations, planViolations } from '../tenancy/rules.js';
import { clusterViolations } from '../clusters/rules.js';

export interface RenderInstanceOptions {
  /** Default `deploy`. */
  plan?: string;
  args?: Record<string, string>;
  renderer: Renderer;
  /** Age keys and the cluster for encrypted values and valuesFrom (see secrets/). */
  values?: ValuesContext;
  /** Values resolved already (the agent reads the cluster once per run): skips resolving them again. */
  resolved?: InstanceParams;
  /** Pipe outputs read from the cluster (`pipes.<task>.<file>`); absent: empty files. */
  pipes?: Record<string, Record<string, string>>;
  /** The caller's framework versions by tree id (the agent's one cache); absent: loaded at every render. */
  frameworks?: FrameworkCache;
}

export type InstanceRenderResult =
  | { ok: true; plan: import('./types.js').RenderedPlan; problems: Problem[]; sensitiveValues: string[] }
  | { ok: false; problems: Problem[]; sensitiveValues: string[] };

/**
 * Loads the framework version an instance points at, with located problems when it does not exist.
 * `frameworks` is the caller's cache (framework-cache.ts: by the folder's Git tree id, so never stale,
 * and bounded): a long-running caller (the agent) hands its own, so a plan run that renders its instance
 * several times (the plan, each lifecycle plan for the inventory and drift) parses framework.yaml and
 * params.yaml once, not at every render (issue #20). There is no module-wide cache: two agents in one
 * process, or two test files in one worker, would share its entries and its bound. Without a cache (a
 * one-shot command on a working directory, which has no tree ids anyway) the version is loaded every time.
 */
export async function loadInstanceFramework(tree: FileTree, instance: Instance, frameworks?: FrameworkCache): Promise<Loaded<Framework>> {
  const { framework, version } = instance.decl;
  const src = instance.source;
  const versions = (await tree.list(`frameworks/${framework}`)).filter((e) => e.type === 'dir').map((e) => e.name);
  if (versions.length === 0) {
    return { ok: false, problems: [problem({ code: 'INSTANCE_FRAMEWORK_UNKNOWN', file: instance.file, path: ['framework'], ...src.locate(['framework']), message: `framework "${framework}" does not exist under frameworks/` })] };
  }
  if (!versions.includes(version)) {
    return { ok: false, problems: [problem({ code: 'INSTANCE_VERSION_UNKNOWN', file: instance.file, path: ['version'], ...src.locate(['version']), message: `framework ${framework} has no version ${version} (available: ${versions.join(', ')})` })] };
  }
  return frameworks ? frameworks.load(tree, framework, version) : loadFramework(tree, framework, version);
}

/**
 * Instance files loaded for renders, by path and blob id (instance-cache.ts). Unlike framework versions this
 * cache is process-wide: an entry is one small parsed file keyed by its content's blob id (never stale), 64
 * at most, so two agents in one process sharing it costs nothing but hits.
 */
const instances = new InstanceCache();

/** The instance file at `path` as `loadInstance` loads it, from the process's cache when the tree has ids. */
export function loadInstanceOnce(tree: FileTree, path: string): Promise<Loaded<Instance>> {
  return instances.load(tree, path);
}

/** Instance files loadInstanceOnce loaded from a tree, not from its cache (tests). */
export function instanceFileLoads(): number {
  return instances.loads;
}

function withTenancy(result: Extract<RenderResult, { ok: true }>, violations: Problem[]): RenderResult {
  return violations.length === 0 ? result : { ok: false, problems: [...result.problems, ...violations] };
}

export async function renderInstancePlan(tree: FileTree, instanceFile: string, options: RenderInstanceOptions): Promise<InstanceRenderResult> {
  const settings: Loaded<RepositorySettings> = await loadSettings(tree);
  if (!settings.ok) return { ok: false, problems: settings.problems, sensitiveValues: [] };
  const inst = await loadInstanceOnce(tree, instanceFile);
  if (!inst.ok) return { ok: false, problems: inst.problems, sensitiveValues: [] };
  const fw = await loadInstanceFramework(tree, inst.value, options.frameworks);
  if (!fw.ok) return { ok: false, problems: [...inst.problems, ...fw.problems], sensitiveValues: [] };
  const resolved = options.resolved ?? (await resolveInstanceParams(tree, inst.value, fw.value, options.values));
  const tenants = settings.value.decl.tenants;
  const tenancy = [
    ...instanceViolations(tenants, { file: inst.value.file, namespace: inst.value.namespace, framework: inst.value.decl.framework, locate: (path) => inst.value.source.locate(path) }),
    ...clusterViolations(settings.value.decl.clusters, { file: inst.value.file, cluster: inst.value.decl.cluster, locate: (path) => inst.value.source.locate(path) }),
  ];
  const warnings = [...settings.problems, ...inst.problems, ...fw.problems, ...tenancy];
  if (hasErrors(resolved.problems) || hasErrors(tenancy)) return { ok: false, problems: [...warnings, ...resolved.problems], sensitiveValues: resolved.sensitiveValues };
  const rendered: RenderResult = await renderPlan({
    framework: { ...fw.value, params: resolved.decls },
    instance: { name: inst.value.name, namespace: inst.value.namespace },
    params: resolved.values,
    sensitiveValues: resolved.sensitiveValues,
    plan: options.plan ?? 'deploy',
    ...(options.args ? { args: options.args } : {}),
    stepTimeoutSeconds: settings.value.stepTimeoutSeconds,
    renderer: options.renderer,
    ...(options.pipes ? { pipes: options.pipes } : {}),
  });
  // A plan that creates what the instance's tenant may not is refused before anything is applied.
  const result: RenderResult = rendered.ok ? withTenancy(rendered, planViolations(tenants, inst.value.file, rendered.plan, fw.value.dir)) : rendered;
  const problems = [...warnings, ...resolved.problems, ...result.problems];
  return result.ok ? { ok: true, plan: result.plan, problems, sensitiveValues: resolved.sensitiveValues } : { ok: false, problems, sensitiveValues: resolved.sensitiveValues };
}
