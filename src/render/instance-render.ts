/**
 * The one-call entry point for "render plan P of the instance in file F of this repository", used by
 * `baton render`, the agent and previews: loads settings, the instance and its framework version,
 * resolves the values and renders the plan.
 */
import type { Framework, Instance, Loaded, RepositorySettings } from './model.js';
import { renderPlan, type RenderResult } from './plan.js';
import { hasErrors, problem, type Problem } from './problems.js';
import { FrameworkCache } from './framework-cache.js';
import { InstanceCache } from './instance-cache.js';
import { loadSettings } from './repository.js';
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
}

export type InstanceRenderResult =
  | { ok: true; plan: import('./types.js').RenderedPlan; problems: Problem[]; sensitiveValues: string[] }
  | { ok: false; problems: Problem[]; sensitiveValues: string[] };

/**
 * Framework versions loaded for instance renders, by their folder's Git tree id (framework-cache.ts:
 * content-addressed, so never stale; at most 32 versions). A plan run renders its instance several
 * times (the plan, each lifecycle plan for the inventory and drift) and every render loaded and parsed
 * framework.yaml and params.yaml again: YAML parsing was about half of what an agent allocated at
 * 1,000 instances, garbage that raised its peak RSS (issue #20). A tree without ids (a working
 * directory: `baton render`, `baton validate`) loads every time, as before.
 */
const frameworks = new FrameworkCache();
/** Instance files loaded for renders, by path and blob id (instance-cache.ts). */
const instances = new InstanceCache();

/** The instance file at `path` as `loadInstance` loads it, from the process's cache when the tree has ids. */
export function loadInstanceOnce(tree: FileTree, path: string): Promise<Loaded<Instance>> {
  return instances.load(tree, path);
}

/** Instance files loadInstanceOnce loaded from a tree, not from its cache (tests). */
export function instanceFileLoads(): number {
  return instances.loads;
}

/** Loads the framework version an instance points at, with located problems when it does not exist. */
export async function loadInstanceFramework(tree: FileTree, instance: Instance): Promise<Loaded<Framework>> {
  const { framework, version } = instance.decl;
  const src = instance.source;
  const versions = (await tree.list(`frameworks/${framework}`)).filter((e) => e.type === 'dir').map((e) => e.name);
  if (versions.length === 0) {
    return { ok: false, problems: [problem({ code: 'INSTANCE_FRAMEWORK_UNKNOWN', file: instance.file, path: ['framework'], ...src.locate(['framework']), message: `framework "${framework}" does not exist under frameworks/` })] };
  }
  if (!versions.includes(version)) {
    return { ok: false, problems: [problem({ code: 'INSTANCE_VERSION_UNKNOWN', file: instance.file, path: ['version'], ...src.locate(['version']), message: `framework ${framework} has no version ${version} (available: ${versions.join(', ')})` })] };
  }
  return frameworks.load(tree, framework, version);
}

/** Framework versions loadInstanceFramework loaded from a tree, not from its cache (tests). */
export function instanceFrameworkLoads(): number {
  return frameworks.loads;
}

function withTenancy(result: Extract<RenderResult, { ok: true }>, violations: Problem[]): RenderResult {
  return violations.length === 0 ? result : { ok: false, problems: [...result.problems, ...violations] };
}

export async function renderInstancePlan(tree: FileTree, instanceFile: string, options: RenderInstanceOptions): Promise<InstanceRenderResult> {
  const settings: Loaded<RepositorySettings> = await loadSettings(tree);
  if (!settings.ok) return { ok: false, problems: settings.problems, sensitiveValues: [] };
  const inst = await loadInstanceOnce(tree, instanceFile);
  if (!inst.ok) return { ok: false, problems: inst.problems, sensitiveValues: [] };
  const fw = await loadInstanceFramework(tree, inst.value);
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
