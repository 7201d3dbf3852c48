/**
 * Renders one plan of an instance into the RenderedPlan value the engine executes: every template of
 * every step goes to the sandbox in ONE job, then each object is checked, enhanced and put in its
 * step's ordered batch. Pure apart from the sandbox: same inputs, byte-identical output.
 */
import { isRecord, refKey, refOf, type KubeObject } from '../kube/object.js';
import { addConfigHashes, enhanceObject } from './enhance.js';
import { orderBatch } from './kinds.js';
import { ownerValue, selectorLabels, standardLabels } from './labels.js';
import { parseOwnership } from './ownership-annotations.js';
import { checkPlanArgs } from './plan-args.js';
import { maskSensitive } from './mask.js';
import type { Framework } from './model.js';
import type { ParamValues } from './params.js';
import { problem, type Problem } from './problems.js';
import { compileTemplate, type CompiledTemplate } from './sandbox/compile.js';
import type { FailureKind, Renderer, SandboxRender } from './sandbox/renderer.js';
import type { BatchAction, ReadinessRule, RenderedPlan, RenderedStep } from './types.js';
import type { FrameworkDecl } from './schemas.js';
import { parseDuration } from './versions.js';
import { DEFAULT_STEP_TIMEOUT_SECONDS } from './repository.js';
import { renderKey } from './render-cache.js';
import { pipeLocals, pipeOf } from './pipes.js';
import type { RenderedChild, RenderedPipe } from './types.js';
import { childOf } from './children.js';

export interface RenderPlanInput {
  framework: Framework;
  instance: { name: string; namespace: string };
  /** Resolved parameter values (see resolveParams). */
  params: ParamValues;
  /** Values to mask in messages (ResolvedParams.sensitiveValues). */
  sensitiveValues?: readonly string[];
  plan: string;
  /** One-shot plan arguments, reaching templates as `plan.args`. */
  args?: Record<string, string>;
  /** Default step timeout (baton.yaml defaults.stepTimeout). */
  stepTimeoutSeconds?: number;
  renderer: Renderer;
  /** Outputs of Pipe tasks as read from the cluster; a pipe not produced yet reads as empty files. */
  pipes?: Record<string, Record<string, string>>;
}

export type RenderResult = { ok: true; plan: RenderedPlan; problems: Problem[] } | { ok: false; problems: Problem[] };

export const NAMESPACE_TASK = 'namespace';

const FAILURE_CODES: Record<FailureKind, string> = {
  runtime: 'TEMPLATE_RUNTIME',
  undefined: 'TEMPLATE_UNDEFINED',
  value: 'TEMPLATE_VALUE',
  output: 'TEMPLATE_OUTPUT_LIMIT',
  yaml: 'TEMPLATE_YAML',
  alias: 'TEMPLATE_ALIAS_LIMIT',
  timeout: 'TEMPLATE_TIMEOUT',
  memory: 'TEMPLATE_MEMORY',
  internal: 'TEMPLATE_INTERNAL',
};

interface Slot {
  phase: number;
  step: number;
  task: string;
  template: string;
  action: 'apply' | 'delete';
  force: boolean;
  /** The task says `force: false`. */
  noForce: boolean;
  /** Only the namespace manifest may produce Namespace objects. */
  namespaceManifest: boolean;
}

/** Plans the renders: which template renders for which step and task, and as which action. */
function planSlots(input: RenderPlanInput, problems: Problem[]): { slots: Slot[]; renders: SandboxRender[] } {
  const { framework: fw, plan: planName } = input;
  const src = fw.frameworkSource;
  const plan = fw.decl.plans[planName];
  const slots: Slot[] = [];
  const renders: SandboxRender[] = [];
  if (!plan) {
    const known = Object.keys(fw.decl.plans).sort().join(', ');
    problems.push(problem({ code: 'PLAN_UNKNOWN', file: src.file, path: ['plans'], ...src.locate(['plans'], true), message: `framework ${fw.name} ${fw.version} has no plan "${planName}" (plans: ${known})` }));
    return { slots, renders };
  }
  const checked = checkPlanArgs(fw, planName, input.args ?? {});
  if (!checked.ok) {
    problems.push(...checked.problems);
    return { slots, renders };
  }
  const args = checked.args;
  const tasks = new Map(fw.decl.tasks.map((t) => [t.name, t]));
  const add = (slot: Slot, phase: string, step: string): void => {
    const tpl = fw.templates.get(slot.template);
    if (!tpl) return;
    slots.push(slot);
    renders.push({ key: '', file: tpl.file, plan: { name: planName, phase, step, args } });
  };
  plan.phases.forEach((phase, pi) => {
    phase.steps.forEach((step, si) => {
      if (pi === 0 && si === 0 && fw.decl.namespaceManifest !== undefined) {
        add({ phase: pi, step: si, task: NAMESPACE_TASK, template: fw.decl.namespaceManifest, action: 'apply', force: false, noForce: false, namespaceManifest: true }, phase.name, step.name);
      }
      step.tasks.forEach((taskName, ti) => {
        const path = ['plans', planName, 'phases', pi, 'steps', si, 'tasks', ti];
        const task = tasks.get(taskName);
        if (!task) {
          problems.push(problem({ code: 'TASK_UNKNOWN', file: src.file, path, ...src.locate(path), message: `step ${phase.name}/${step.name} names task "${taskName}", which is not declared under tasks` }));
          return;
        }
        let action: 'apply' | 'delete' = task.kind === 'Delete' ? 'delete' : 'apply';
        if (task.kind === 'Toggle') {
          const value = input.params[task.parameter];
          if (typeof value !== 'boolean') {
            problems.push(problem({ code: 'TOGGLE_PARAM_TYPE', file: src.file, path: ['tasks'], ...src.locate(['tasks'], true), message: `Toggle task ${task.name} needs boolean parameter ${task.parameter}, got ${JSON.stringify(value) ?? 'undefined'}` }));
            return;
          }
          action = value ? 'apply' : 'delete';
        }
        for (const template of task.resources) {
          if (!fw.templates.has(template)) {
            problems.push(problem({ code: 'TEMPLATE_MISSING', file: src.file, path: ['tasks'], ...src.locate(['tasks'], true), message: `task ${task.name} names template ${template}, which does not exist in ${fw.dir}/templates` }));
            continue;
          }
          add({ phase: pi, step: si, task: task.name, template, action, force: task.kind === 'Apply' && task.force === true, noForce: task.kind === 'Apply' && task.force === false, namespaceManifest: false }, phase.name, step.name);
        }
      });
    });
  });
  if (fw.decl.namespaceManifest !== undefined && !fw.templates.has(fw.decl.namespaceManifest)) {
    problems.push(problem({ code: 'TEMPLATE_MISSING', file: src.file, path: ['namespaceManifest'], ...src.locate(['namespaceManifest']), message: `namespaceManifest names template ${fw.decl.namespaceManifest}, which does not exist in ${fw.dir}/templates` }));
  }
  return { slots, renders };
}

interface CompiledSet {
  compiled: Map<string, CompiledTemplate>;
  /** Template name -> compiled key, for `include()` in the sandbox. */
  partials: Record<string, string>;
  defines: CompiledTemplate[];
}

/**
 * What compiling a framework's templates gives, kept per loaded template map when every template compiled:
 * it depends on the templates only, and rebuilding it for every render showed up in profiles.
 */
const compiledSets = new WeakMap<Framework['templates'], CompiledSet>();

/** Compiles the framework's templates; syntax errors are reported for used templates and partials. */
function compileAll(fw: Framework, used: Set<string>, problems: Problem[]): CompiledSet {
  const known = compiledSets.get(fw.templates);
  // The map is built once by loadFramework and never changed; the size check is a cheap guard all the same.
  if (known && known.compiled.size === fw.templates.size) return known;
  const compiled = new Map<string, CompiledTemplate>();
  let failed = false;
  for (const [name, tpl] of fw.templates) {
    const result = compileTemplate(tpl);
    if (result.ok) compiled.set(name, result.compiled);
    else {
      failed = true;
      if (used.has(name) || name.split('/').pop()!.startsWith('_')) problems.push(...result.problems);
    }
  }
  const set: CompiledSet = { compiled, partials: Object.fromEntries([...compiled].map(([name, c]) => [name, c.key])), defines: [...compiled.values()] };
  if (!failed) compiledSets.set(fw.templates, set);
  return set;
}

function checkObject(doc: unknown, file: string, index: number, problems: Problem[]): KubeObject | undefined {
  const where = `document ${index + 1} of the output`;
  const bad = (message: string): undefined => void problems.push(problem({ code: 'RENDER_OBJECT_INVALID', file, message: `${where}: ${message}` }));
  if (!isRecord(doc)) return bad(`expected a Kubernetes object (a mapping), got ${Array.isArray(doc) ? 'a list' : typeof doc}`);
  if (typeof doc.apiVersion !== 'string' || doc.apiVersion === '') return bad('apiVersion is missing or not a string');
  if (typeof doc.kind !== 'string' || doc.kind === '') return bad('kind is missing or not a string');
  if (!isRecord(doc.metadata) || typeof doc.metadata.name !== 'string' || doc.metadata.name === '') {
    return bad(`${doc.kind}: metadata.name is missing or not a string (generateName is not supported: objects need stable names)`);
  }
  return doc as KubeObject;
}

export async function renderPlan(input: RenderPlanInput): Promise<RenderResult> {
  const cache = input.renderer.cache;
  if (cache.capacity <= 0) return renderUncached(input);
  const key = renderKey(input);
  const hit = cache.get(key);
  if (hit) return { ok: true, plan: hit, problems: [] };
  const result = await renderUncached(input);
  if (result.ok) cache.set(key, result.plan);
  return result;
}

async function renderUncached(input: RenderPlanInput): Promise<RenderResult> {
  const { framework: fw, instance } = input;
  const problems: Problem[] = [];
  const { slots, renders } = planSlots(input, problems);
  const { compiled, partials, defines } = compileAll(fw, new Set(slots.map((s) => s.template)), problems);
  if (problems.length > 0) return { ok: false, problems: maskSensitive(problems, input.sensitiveValues ?? []) };

  for (const [i, r] of renders.entries()) r.key = compiled.get(slots[i]!.template)!.key;
  const labels = standardLabels(fw.name, instance.name, fw.version);
  // Deferred: the outputs are parsed here, after the wait, so nothing the (long-waiting) promise holds keeps them alive.
  const takeOutputs = await input.renderer.runDeferred({
    base: {
      instance: { name: instance.name, namespace: instance.namespace },
      framework: { name: fw.name, version: fw.version, appVersion: fw.decl.appVersion },
      params: input.params,
      labels,
      selectorLabels: selectorLabels(fw.name, instance.name),
      pipes: pipeLocals(fw, input.pipes),
    },
    renders,
    partials,
    defines,
  });
  const outputs = takeOutputs();

  const plan = fw.decl.plans[input.plan]!;
  const steps: BatchAction[][][] = plan.phases.map((ph) => ph.steps.map(() => []));
  const pipes: RenderedPipe[][][] = plan.phases.map((ph) => ph.steps.map(() => []));
  const children: RenderedChild[][][] = plan.phases.map((ph) => ph.steps.map(() => []));
  const all: KubeObject[] = [];
  outputs.forEach((out, i) => {
    const slot = slots[i]!;
    if (!out.ok) {
      const detail = out.outputLine ? ` (rendered output line ${out.outputLine}: ${out.outputText?.trim() ?? ''})` : '';
      problems.push(problem({ code: FAILURE_CODES[out.kind], file: out.file, line: out.line, column: out.column ?? 0, message: `${out.message}${detail}` }));
      return;
    }
    const phase = plan.phases[slot.phase]!;
    const step = phase.steps[slot.step]!;
    const slotTask = fw.decl.tasks.find((t) => t.name === slot.task);
    if (slotTask?.kind === 'Instance') {
      const child = childOf(slotTask, out.docs.map((d) => d.value), renders[i]!.file, problems);
      if (child) children[slot.phase]![slot.step]!.push(child);
      return;
    }
    for (const doc of out.docs) {
      const obj = checkObject(doc.value, renders[i]!.file, doc.index, problems);
      if (!obj) continue;
      if (obj.kind === 'Namespace' && !slot.namespaceManifest) {
        problems.push(problem({ code: 'RENDER_NAMESPACE_OBJECT', file: renders[i]!.file, message: `Namespace ${obj.metadata.name} may only come from the framework's namespaceManifest template` }));
        continue;
      }
      const ns = obj.metadata.namespace;
      if (ns !== undefined && ns !== instance.namespace && obj.kind !== 'Namespace') {
        problems.push(problem({ code: 'RENDER_NAMESPACE_MISMATCH', file: renders[i]!.file, message: `${obj.kind} ${obj.metadata.name} sets namespace "${String(ns)}"; objects of an instance live in its namespace "${instance.namespace}"` }));
        continue;
      }
      const ownership = parseOwnership(obj.metadata.annotations);
      if (!ownership.ok) {
        problems.push(problem({ code: 'RENDER_ANNOTATION_INVALID', file: renders[i]!.file, message: `${obj.kind} ${obj.metadata.name}: annotation ${ownership.annotation} must be ${ownership.expected.join(' or ')}, got ${JSON.stringify(ownership.value)}` }));
        continue;
      }
      enhanceObject(obj, { namespace: instance.namespace, frameworkVersion: fw.version, plan: input.plan, phase: phase.name, step: step.name, labels, owner: ownerValue(instance) });
      all.push(obj);
      const action: BatchAction = slot.action === 'apply'
        ? { action: 'apply', object: obj, task: slot.task, template: slot.template, force: slot.force, ...(slot.noForce ? { noForce: true as const } : {}) }
        : { action: 'delete', object: obj, task: slot.task, template: slot.template };
      steps[slot.phase]![slot.step]!.push(action);
    }
    const task = fw.decl.tasks.find((t) => t.name === slot.task);
    if (task?.kind === 'Pipe') {
      const pipe = pipeOf(task, out.docs.map((d) => d.value), renders[i]!.file, instance.name, problems);
      if (pipe) pipes[slot.phase]![slot.step]!.push(pipe);
    }
  });
  addConfigHashes(all);
  duplicateProblems(fw, plan.phases.map((ph) => ph.name), steps, problems);
  if (problems.length > 0) return { ok: false, problems: maskSensitive(problems, input.sensitiveValues ?? []) };

  const defaultTimeout = input.stepTimeoutSeconds ?? DEFAULT_STEP_TIMEOUT_SECONDS;
  const rendered: RenderedPlan = {
    instance: { name: instance.name, namespace: instance.namespace },
    framework: { name: fw.name, version: fw.version, appVersion: fw.decl.appVersion },
    plan: input.plan,
    strategy: plan.strategy,
    phases: plan.phases.map((ph, pi) => ({
      name: ph.name,
      strategy: ph.strategy,
      steps: ph.steps.map((st, si): RenderedStep => ({
        name: st.name,
        timeoutSeconds: (st.timeout !== undefined ? parseDuration(st.timeout) : undefined) ?? defaultTimeout,
        actions: orderBatch(steps[pi]![si]!),
        ...(pipes[pi]![si]!.length > 0 ? { pipes: pipes[pi]![si]! } : {}),
        ...(children[pi]![si]!.length > 0 ? { children: children[pi]![si]! } : {}),
      })),
    })),
    readiness: (fw.decl.readiness ?? []).map(toReadinessRule),
    sensitiveParams: fw.params.filter((p) => p.sensitive === true).map((p) => p.name),
  };
  return { ok: true, plan: rendered, problems: [] };
}

function duplicateProblems(fw: Framework, phases: string[], steps: BatchAction[][][], problems: Problem[]): void {
  steps.forEach((phase, pi) =>
    phase.forEach((batch) => {
      const seen = new Map<string, BatchAction>();
      for (const a of batch) {
        const key = `${a.action}:${refKey(refOf(a.object))}`;
        const first = seen.get(key);
        if (first) {
          problems.push(problem({ code: 'RENDER_DUPLICATE_OBJECT', file: `${fw.dir}/templates/${a.template}`, message: `${a.object.kind} ${a.object.metadata.name ?? ''} is rendered twice in one step of phase ${phases[pi] ?? ''} (also by ${first.template})` }));
        } else seen.set(key, a);
      }
    }),
  );
}

/** Drops absent optional fields (exactOptionalPropertyTypes: absent, never `undefined`). */
function toReadinessRule(decl: NonNullable<FrameworkDecl['readiness']>[number]): ReadinessRule {
  const rule: ReadinessRule = { apiVersion: decl.apiVersion, kind: decl.kind };
  if (decl.readyCondition !== undefined) rule.readyCondition = decl.readyCondition;
  if (decl.failedConditions !== undefined) rule.failedConditions = decl.failedConditions;
  if (decl.field !== undefined) {
    rule.field = { path: decl.field.path, ready: decl.field.ready };
    if (decl.field.failed !== undefined) rule.field.failed = decl.field.failed;
  }
  return rule;
}
