/**
 * `baton validate`: checks a whole repository, one framework version or one instance and collects every
 * problem (schema, cross-references, schedules, and that every plan renders: with defaults for a
 * framework, with the instance's values for an instance).
 */
import { testCaseProblems } from './test-cases.js';
import type { Framework, Instance } from './model.js';
import { frameworkProblems } from './framework-checks.js';
import { loadInstanceFramework } from './instance-render.js';
import { isRequired, resolveParams, sampleValue, type ParamValues } from './params.js';
import { renderPlan } from './plan.js';
import { hasErrors, problem, sortProblems, type Problem } from './problems.js';
import { listFrameworks, loadFramework, loadInstance, loadSettings, parseWith } from './repository.js';
import { scanLayout, type LayoutFile } from './layout.js';
import { appliedObjectsOf, ownershipProblems, type InstanceObjects } from './object-owners.js';
import { requestSchema } from './schemas.js';
import type { Renderer } from './sandbox/renderer.js';
import { scheduleProblems } from './schedules.js';
import { checkPlanArgs, planArgDeclarationProblems, sampleArgs } from './plan-args.js';
import type { FileTree } from './tree.js';
import type { ClusterDecl, TenantDecl } from './schemas.js';
import type { RenderedPlan } from './types.js';
import { resolveInstanceParams } from '../secrets/resolve-params.js';
// Directly, not through compose/index.ts: that entry point also pulls in the engine side (plans/), which imports render/.
import { dependencyProblems } from '../compose/depends/graph.js';
import { childTaskProblems } from '../compose/children/graph.js';
import { placeholderValue } from '../compose/generated/generate.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { instanceViolations, planViolations } from '../tenancy/rules.js';
import { clusterViolations } from '../clusters/rules.js';

export type ValidateScope =
  | { kind: 'repository' }
  | { kind: 'framework'; name: string; version: string }
  /** Every version of one framework (`baton validate frameworks/<name>`). */
  | { kind: 'frameworkVersions'; name: string }
  | { kind: 'instance'; file: string };

export interface ValidationReport {
  problems: Problem[];
  frameworks: number;
  instances: number;
  ok: boolean;
}

async function renderAllPlans(fw: Framework, instance: { name: string; namespace: string }, params: ParamValues, sensitive: string[], stepTimeout: number, renderer: Renderer, check: (plan: RenderedPlan) => Problem[] = () => [], collect?: (plans: RenderedPlan[]) => void): Promise<Problem[]> {
  const out: Problem[] = [];
  const results = await Promise.all(
    Object.keys(fw.decl.plans).sort().map((plan) => renderPlan({ framework: fw, instance, params, sensitiveValues: sensitive, plan, args: sampleArgs(fw, plan), stepTimeoutSeconds: stepTimeout, renderer })),
  );
  collect?.(results.flatMap((r) => (r.ok ? [r.plan] : [])));
  const seen = new Set<string>();
  for (const r of results) {
    for (const p of [...r.problems, ...(r.ok ? check(r.plan) : [])]) {
      // The same template error shows in every plan that renders it: report it once.
      const key = `${p.code}|${p.file}|${p.line}|${p.message}`;
      if (!seen.has(key)) out.push(p);
      seen.add(key);
    }
  }
  return out;
}

export async function validateFramework(tree: FileTree, name: string, version: string, renderer: Renderer, stepTimeout = 600): Promise<Problem[]> {
  const loaded = await loadFramework(tree, name, version);
  if (!loaded.ok) return loaded.problems;
  const fw = loaded.value;
  const problems = [...loaded.problems, ...frameworkProblems(fw), ...planArgDeclarationProblems(fw), ...(await childTaskProblems(tree, fw))];
  if (hasErrors(problems)) return problems;
  const values: ParamValues = {};
  // A generated parameter gets the placeholder of its declared shape (as instance renders without a
  // cluster do), so its own pattern or enum holds; other required ones a sample of their type.
  for (const p of fw.params) if (isRequired(p) && (p.default === undefined || p.default === null)) values[p.name] = p.generate ? placeholderValue(p.generate) : sampleValue(p);
  const resolved = resolveParams(fw.params, values, undefined, `${fw.dir}/params.yaml`);
  problems.push(...resolved.problems);
  if (hasErrors(problems)) return problems;
  problems.push(...(await renderAllPlans(fw, { name: 'validate', namespace: 'validate' }, resolved.values, resolved.sensitiveValues, stepTimeout, renderer)));
  problems.push(...(await testCaseProblems(tree, fw)));
  return problems;
}

/** What validating an instance needs beyond the repository: age keys (validate is lenient: it says what it cannot read) and tenants. */
export interface InstanceCheckOptions {
  values?: ValuesContext;
  tenants?: readonly TenantDecl[];
  /** baton.yaml `clusters`: an instance naming another is refused. */
  clusters?: readonly ClusterDecl[];
  /** baton.yaml did not load: its own problems are reported, not an unknown cluster in every instance naming one. */
  clustersUnknown?: boolean;
  /** Receives the instance's rendered plans (for the repository-wide ownership check). */
  collect?: (plans: RenderedPlan[]) => void;
}

export async function validateInstance(tree: FileTree, file: string, renderer: Renderer, stepTimeout = 600, renderPlans = true, options: InstanceCheckOptions = {}): Promise<Problem[]> {
  const loaded = await loadInstance(tree, file);
  if (!loaded.ok) return loaded.problems;
  const inst: Instance = loaded.value;
  const tenancy = [
    ...instanceViolations(options.tenants, { file: inst.file, namespace: inst.namespace, framework: inst.decl.framework, locate: (path) => inst.source.locate(path) }),
    ...(await dependencyProblems(tree, inst, options.tenants)),
    ...(options.clustersUnknown === true ? [] : clusterViolations(options.clusters, { file: inst.file, cluster: inst.decl.cluster, locate: (path) => inst.source.locate(path) })),
  ];
  const fw = await loadInstanceFramework(tree, inst);
  if (!fw.ok) return [...loaded.problems, ...tenancy, ...fw.problems];
  const problems = [...loaded.problems, ...tenancy];
  problems.push(...scheduleProblems(inst, new Set(Object.keys(fw.value.decl.plans))));
  problems.push(...scheduleArgProblems(inst, fw.value));
  const resolved = await resolveInstanceParams(tree, inst, fw.value, { lenient: true, ...options.values });
  problems.push(...resolved.problems);
  if (hasErrors(resolved.problems) || !renderPlans) return problems;
  const check = (plan: RenderedPlan): Problem[] => planViolations(options.tenants, inst.file, plan, fw.value.dir);
  problems.push(...(await renderAllPlans({ ...fw.value, params: resolved.decls }, { name: inst.name, namespace: inst.namespace }, resolved.values, resolved.sensitiveValues, stepTimeout, renderer, check, options.collect)));
  return problems;
}

export async function validateRepository(tree: FileTree, renderer: Renderer, scope: ValidateScope = { kind: 'repository' }, options: { values?: ValuesContext } = {}): Promise<ValidationReport> {
  const settings = await loadSettings(tree);
  const problems: Problem[] = [...settings.problems];
  const tenants = settings.ok ? settings.value.decl.tenants : undefined;
  const check: InstanceCheckOptions = { ...(options.values ? { values: options.values } : {}), ...(tenants ? { tenants } : {}), ...(settings.ok && settings.value.decl.clusters ? { clusters: settings.value.decl.clusters } : {}), ...(settings.ok ? {} : { clustersUnknown: true }) };
  const stepTimeout = settings.ok ? settings.value.stepTimeoutSeconds : 600;
  let frameworks = 0;
  let instances = 0;
  if (scope.kind === 'framework') {
    frameworks = 1;
    problems.push(...(await validateFramework(tree, scope.name, scope.version, renderer, stepTimeout)));
  } else if (scope.kind === 'frameworkVersions') {
    const versions = (await listFrameworks(tree)).filter((f) => f.name === scope.name);
    frameworks = versions.length;
    if (versions.length === 0) problems.push(problem({ code: 'FILE_MISSING', file: `frameworks/${scope.name}`, message: `frameworks/${scope.name} has no version folders (frameworks/${scope.name}/<version>/framework.yaml)` }));
    for (const v of versions) problems.push(...(await validateFramework(tree, v.name, v.version, renderer, stepTimeout)));
  } else if (scope.kind === 'instance') {
    instances = 1;
    problems.push(...(await validateInstance(tree, scope.file, renderer, stepTimeout, true, check)));
  } else {
    const fws = await listFrameworks(tree);
    frameworks = fws.length;
    const badFrameworks = new Set<string>();
    for (const f of fws) {
      const found = await validateFramework(tree, f.name, f.version, renderer, stepTimeout);
      if (hasErrors(found)) badFrameworks.add(`${f.name}@${f.version}`);
      problems.push(...found);
    }
    const layout = await scanLayout(tree);
    const owned: InstanceObjects[] = [];
    problems.push(...layout.problems);
    instances = layout.instances.length;
    for (const ref of layout.instances) {
      // A duplicate or a symbolic link refuses the instance (as the agent does): its content is not read.
      problems.push(...ref.problems);
      if (hasErrors(ref.problems)) continue;
      const inst = await loadInstance(tree, ref.file);
      // An instance of a broken framework version would repeat the framework's errors: check values only.
      const render = !(inst.ok && badFrameworks.has(`${inst.value.decl.framework}@${inst.value.decl.version}`));
      problems.push(...(await validateInstance(tree, ref.file, renderer, stepTimeout, render, { ...check, collect: (plans) => owned.push({ file: ref.file, instance: ref, objects: appliedObjectsOf(plans) }) })));
    }
    problems.push(...ownershipProblems(owned));
    for (const req of layout.requests) problems.push(...(await requestProblems(tree, req, layout.instances)));
  }
  // A framework's problems also surface through each of its instances: keep one of each.
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const key = `${p.code}|${p.file}|${p.line}|${p.column}|${p.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const sorted = sortProblems(unique);
  return { problems: sorted, frameworks, instances, ok: !hasErrors(sorted) };
}

/** A plan request file: its own schema, an instance that exists, a plan its framework has. */
async function requestProblems(tree: FileTree, req: LayoutFile, instances: readonly LayoutFile[]): Promise<Problem[]> {
  if (hasErrors(req.problems)) return req.problems;
  const parsed = await parseWith(tree, req.file, requestSchema, true);
  if (!parsed.value || !parsed.parsed) return parsed.problems;
  const source = parsed.parsed;
  const owner = instances.find((i) => i.namespace === req.namespace && i.name === req.name);
  if (!owner) {
    return [...parsed.problems, problem({ code: 'REQUEST_INSTANCE_UNKNOWN', file: req.file, message: `${req.file} requests a plan of instance ${req.namespace}/${req.name}, which has no file under instances/${req.namespace}/` })];
  }
  const inst = await loadInstance(tree, owner.file);
  if (!inst.ok) return parsed.problems;
  const fw = await loadInstanceFramework(tree, inst.value);
  if (!fw.ok) return parsed.problems;
  const doc = parsed.value;
  const items = doc.kind === 'PlanRequest' ? [{ at: [] as (string | number)[], plan: doc.plan as string | undefined, phase: undefined as string | undefined, step: undefined as string | undefined }] : doc.requests.map((r, i) => ({ at: ['requests', i] as (string | number)[], plan: r.plan, phase: r.phase, step: r.step }));
  const out = [...parsed.problems];
  const plans = fw.value.decl.plans;
  const names = Object.keys(plans).sort().join(', ');
  for (const item of items) {
    if (item.plan === undefined) continue;
    const plan = plans[item.plan];
    if (!plan) {
      out.push(problem({ code: 'PLAN_UNKNOWN', file: req.file, path: [...item.at, 'plan'], ...source.locate([...item.at, 'plan']), message: `plan "${item.plan}" does not exist in framework ${fw.value.name} ${fw.value.version} (plans: ${names})` }));
      continue;
    }
    if (item.phase === undefined) continue;
    const phase = plan.phases.find((p) => p.name === item.phase);
    if (!phase) {
      out.push(problem({ code: 'PHASE_UNKNOWN', file: req.file, path: [...item.at, 'phase'], ...source.locate([...item.at, 'phase']), message: `plan ${item.plan} has no phase "${item.phase}" (phases: ${plan.phases.map((p) => p.name).join(', ')})` }));
    } else if (item.step !== undefined && !phase.steps.some((s) => s.name === item.step)) {
      out.push(problem({ code: 'STEP_UNKNOWN', file: req.file, path: [...item.at, 'step'], ...source.locate([...item.at, 'step']), message: `phase ${item.phase} of plan ${item.plan} has no step "${item.step}" (steps: ${phase.steps.map((s) => s.name).join(', ')})` }));
    }
  }
  return out;
}

/** A schedule's `args` checked against its plan's declared arguments, located at the schedule. */
function scheduleArgProblems(inst: Instance, fw: Framework): Problem[] {
  return inst.decl.schedules.flatMap((s, i) => {
    if (fw.decl.plans[s.plan] === undefined) return [];
    const checked = checkPlanArgs(fw, s.plan, s.args ?? {});
    if (checked.ok) return [];
    const path = ['schedules', i, ...(s.args !== undefined ? ['args'] : [])];
    return checked.problems.map((p) => ({ ...p, file: inst.file, path, ...inst.source.locate(path), message: `schedule ${i + 1}: ${p.message}` }));
  });
}
