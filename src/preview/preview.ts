/**
 * `baton preview`: what merging a change would do. Loads every instance at the base and the head,
 * keeps those the change affects (their file, or the framework version they use), asks plan selection
 * what would run (exactly as the agent would), renders it and compares objects with the base.
 */
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { refKey, refOf } from '../kube/object.js';
import { desiredStoredValues, selectPlan, type PreviousState, type Selection } from '../plans/selection.js';
import { frameworkDigest } from '../render/digest.js';
import { appliedObjectsOf, FrameworkCache, listFrameworks, loadFramework, maskSensitive, ownershipProblems, scanLayout, type FileTree, type InstanceObjects, type Problem, type RenderedPlan, type Renderer } from '../render/index.js';
import { instanceAt, type InstanceAt } from './instance-at.js';
import { liveChanges } from './live.js';
import { diffObject, indexByRef, prunedRefs, type Masker } from './object-diff.js';
import { appliedObjects, renderLoaded } from './render-objects.js';
import { diffSchedules } from './schedules.js';
import { scaleDowns } from '../recovery/decommission.js';
import { canaryWaits, continueCommand, waitPoint } from '../control/index.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { planViolations } from '../tenancy/rules.js';
import type { FrameworkPreview, InstanceId, InstanceOutcome, InstancePreview, PreviewProblem, PreviewReport, StepPreview } from './types.js';
import { clusterTargets, type ClusterSide } from './cluster-target.js';
import type { LocalKubeconfig } from '../clusters/describe.js';
import type { ClusterDecl } from '../render/schemas.js';

import { orderOfFiles } from '../compose/index.js';

export interface PreviewInput {
  base: FileTree;
  head: FileTree;
  baseRef: string;
  headRef: string;
  renderer: Renderer;
  now: Date;
  /** With a cluster: also the difference against live objects (server-side dry-run apply), in the agent's own cluster. */
  live?: KubeClient;
  /** With `live`: the client of a baton.yaml cluster an instance targets (the agent's resolution, src/clusters/). */
  liveCluster?: (decl: ClusterDecl) => KubeClient;
  /** The kubeconfig standing for the agent's own here (`--kubeconfig`, `--context`): servers shown without contacting a cluster. */
  local?: LocalKubeconfig;
  /** Age keys to decrypt SOPS-encrypted values with (without them, placeholders and a note). */
  values?: ValuesContext;
}

type Loaded = Extract<InstanceAt, { ok: true }>;
const LIFECYCLE = new Set(['deploy', 'update', 'upgrade']);

export async function buildPreview(input: PreviewInput): Promise<PreviewReport> {
  // The same layout rules as validate and the agent (render/layout.ts).
  const [baseLayout, headLayout] = await Promise.all([scanLayout(input.base), scanLayout(input.head)]);
  const baseFiles = baseLayout.instances.map((i) => i.file);
  const headFiles = headLayout.instances.map((i) => i.file);
  const files = [...new Set([...baseFiles, ...headFiles])].sort();
  const instances: InstancePreview[] = [];
  const problems: PreviewProblem[] = headLayout.problems.filter((p) => p.severity === 'error').map(located);
  const headAt = new Map<string, InstanceAt>();
  const targets = clusterTargets(input.base, input.head, input.local ?? {});
  // Instances on a cluster whose baton.yaml declaration changes are affected too (CLUSTER_SERVER_CHANGED).
  const redeclared = await targets.redeclared();
  // One cache for this preview: the base and the head share the versions their tree ids say are the same.
  const fwCache = new FrameworkCache();
  for (const file of files) {
    const before = baseFiles.includes(file) ? await instanceAt(input.base, file, input.values, fwCache) : undefined;
    const layoutErrors = headLayout.instances.find((i) => i.file === file)?.problems ?? [];
    let after = headFiles.includes(file) ? await instanceAt(input.head, file, input.values, fwCache) : undefined;
    if (after !== undefined) headAt.set(file, after);
    // Refused by the layout (a second file for it, a symbolic link): as the agent refuses it.
    if (after !== undefined && layoutErrors.length > 0) after = { ok: false, problems: layoutErrors, sensitiveValues: [], text: after.text };
    const onRedeclared = after?.ok === true && before?.ok === true && redeclared.has(after.instance.decl.cluster ?? '') && before.instance.decl.cluster === after.instance.decl.cluster;
    if (!isAffected(before, after) && !onRedeclared) continue;
    const side = await targets.of(file);
    const preview = await previewInstance(file, before, after, input, side);
    if (preview.problems.length > 0) problems.push(...preview.problems);
    instances.push({ ...preview.instance, cluster: side.target, ...(side.from ? { clusterFrom: side.from } : {}), ...(side.redeclared ? { clusterRedeclared: side.redeclared } : {}) });
  }
  problems.push(...(await ownershipConflicts(headAt, input.renderer)).map(located));
  const frameworks = await frameworkChanges(input.base, input.head, headFiles, fwCache);
  const acceptable = problems.length === 0 && instances.every((i) => i.outcome !== 'refused');
  const runs = instances.filter((i) => i.outcome === 'run').map((i) => headFiles.find((f) => f.startsWith(`instances/${i.instance.namespace}/${i.instance.name}.`))).filter((f): f is string => f !== undefined);
  const order = await orderOfFiles(input.head, runs);
  return { base: input.baseRef, head: input.headRef, instances, frameworks, problems, ...(order ? { order } : {}), acceptable };
}

/** A file change, a framework content change or a newly broken instance affects it. */
function isAffected(before: InstanceAt | undefined, after: InstanceAt | undefined): boolean {
  if (!before || !after) return true;
  if (before.text !== after.text) return true;
  if (before.ok && after.ok) return before.desired.frameworkHash !== after.desired.frameworkHash;
  return before.ok !== after.ok;
}

function idOf(file: string): InstanceId {
  const parts = file.split('/');
  return { namespace: parts[1] ?? '', name: (parts[2] ?? '').replace(/\.ya?ml$/, '') };
}

function located(p: Problem): PreviewProblem {
  return { code: p.code, file: p.file, ...(p.line > 0 ? { line: p.line } : {}), message: p.message };
}

interface InstanceResult {
  instance: InstanceOutcome;
  problems: PreviewProblem[];
}

async function previewInstance(file: string, before: InstanceAt | undefined, after: InstanceAt | undefined, input: PreviewInput, side: ClusterSide): Promise<InstanceResult> {
  const instance = idOf(file);
  const secrets = [...(before?.sensitiveValues ?? []), ...(after?.sensitiveValues ?? [])];
  const mask: Masker = (text) => maskSensitive(text, secrets);
  if (!after) return { instance: await removal(instance, before, input, mask), problems: [] };
  if (!after.ok) {
    const errors = after.problems.filter((p) => p.severity === 'error').map((p) => maskSensitive(located(p), secrets));
    const first = errors[0];
    const refusal: InstanceOutcome = {
      outcome: 'refused',
      instance,
      code: first?.code ?? 'INVALID',
      message: first ? `${first.file}${first.line ? `:${first.line}` : ''}: ${first.message}` : 'the instance is invalid',
      details: errors.slice(1).map((p) => `${p.file}${p.line ? `:${p.line}` : ''} ${p.code}: ${p.message}`),
    };
    return { instance: refusal, problems: errors };
  }
  // The agent refuses a move between clusters (CLUSTER_MOVE, src/clusters/assign.ts), and stops an
  // instance whose cluster name now reaches another server (CLUSTER_SERVER_CHANGED): say so before the merge.
  const stop = side.move ?? side.serverChange;
  if (stop !== undefined) {
    const p = located(stop);
    return { instance: { outcome: 'refused', instance, code: p.code, message: `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`, details: [] }, problems: [] };
  }
  const previous = before?.ok ? previousOf(before) : undefined;
  const selection = selectPlan(previous, after.desired);
  return { instance: await fromSelection(instance, selection, before?.ok ? before : undefined, after, input, mask, side.decl), problems: [] };
}

function previousOf(state: Loaded): PreviousState {
  return { frameworkVersion: state.desired.frameworkVersion, frameworkHash: state.desired.frameworkHash, values: desiredStoredValues(state.desired), handledRequests: [] };
}

async function fromSelection(instance: InstanceId, selection: Selection, before: Loaded | undefined, after: Loaded, input: PreviewInput, mask: Masker, decl: ClusterDecl | undefined): Promise<InstanceOutcome> {
  const schedules = diffSchedules(before?.instance.decl.schedules ?? [], after.instance.decl.schedules, input.now);
  switch (selection.kind) {
    case 'refuse':
      return { outcome: 'refused', instance, code: selection.code, message: mask(selection.message), details: detailLines(selection.details).map(mask) };
    case 'nothing':
      return { outcome: 'no-plan', instance, reasons: [schedules.length > 0 ? 'only schedules changed' : selection.reason], schedules };
    case 'remove':
      return { outcome: 'remove', instance, cleanupPlan: selection.cleanupPlan ?? null, steps: [], pruned: [] };
    case 'run':
      break;
  }
  const rendered = await renderLoaded(after, selection.plan, selection.args, input.renderer);
  // The tenant's rules: a plan creating what the tenant may not is refused, as the agent would.
  const violations = rendered.ok ? planViolations(after.tenants, after.instance.file, rendered.plan, after.framework.dir) : [];
  const headPlan = rendered.ok && violations.length > 0 ? { ok: false as const, problems: violations } : rendered;
  if (!headPlan.ok) {
    const [first, ...rest] = headPlan.problems.filter((p) => p.severity === 'error').map(located);
    return { outcome: 'refused', instance, code: first?.code ?? 'RENDER_FAILED', message: mask(first?.message ?? 'rendering failed'), details: rest.map((p) => mask(`${p.code}: ${p.message}`)) };
  }
  const family = LIFECYCLE.has(selection.plan) ? ['deploy', selection.plan] : [selection.plan];
  const baseObjects = before ? await objectsOf(before, family, input.renderer) : [];
  const headObjects = [...appliedObjects(headPlan.plan), ...(await objectsOf(after, family.filter((p) => p !== selection.plan), input.renderer))];
  const baseIndex = indexByRef(baseObjects);
  const steps: StepPreview[] = [];
  for (const phase of headPlan.plan.phases) {
    for (const step of phase.steps) {
      const changes = step.actions.map((a) =>
        a.action === 'delete' ? { change: 'delete' as const, ref: refOf(a.object) } : diffObject(baseIndex.get(refKey(refOf(a.object))), a.object, mask),
      );
      const children = (step.children ?? []).map((c) => ({ instance: `${instance.namespace}/${c.name}`, task: c.task, framework: c.framework, version: c.version }));
      steps.push({ phase: phase.name, step: step.name, changes, ...(children.length > 0 ? { children } : {}) });
    }
  }
  const preview: Extract<InstanceOutcome, { outcome: 'run' }> = {
    outcome: 'run',
    instance,
    plan: selection.plan,
    reasons: [selection.reason],
    // What the preview could not check (encrypted values without a key, values from the cluster) is said here.
    warnings: [...selection.warnings, ...after.notes.map((n) => mask(n.message))],
    ...waitsOf(instance, headPlan.plan),
    steps,
    pruned: prunedRefs(baseObjects, headObjects),
    schedules,
  };
  const decommission = after.framework.decl.decommission;
  const downs = scaleDowns(baseObjects, headObjects).map((d) => ({ ...d, volumes: decommission?.volumes ?? 'keep', ...(decommission?.plan ? { plan: decommission.plan } : {}) }));
  if (downs.length > 0) preview.scaleDowns = downs;
  const live = liveClientOf(input, decl);
  if (live !== undefined) preview.live = await liveChanges(live, appliedObjects(headPlan.plan), mask);
  return preview;
}

/** The live comparison runs in the instance's own target cluster, never in another one. */
function liveClientOf(input: PreviewInput, decl: ClusterDecl | undefined): KubeClient | undefined {
  if (input.live === undefined) return undefined;
  return decl === undefined ? input.live : input.liveCluster?.(decl);
}

async function objectsOf(state: Loaded, plans: string[], renderer: Renderer): Promise<ReturnType<typeof appliedObjects>> {
  const out = [];
  for (const plan of new Set(plans)) {
    const r = await renderLoaded(state, plan, {}, renderer);
    if (r.ok) out.push(...appliedObjects(r.plan));
  }
  return out;
}

async function removal(instance: InstanceId, before: InstanceAt | undefined, input: PreviewInput, mask: Masker): Promise<InstanceOutcome> {
  if (!before?.ok) return { outcome: 'remove', instance, cleanupPlan: null, steps: [], pruned: [] };
  const hasCleanup = before.framework.decl.plans.cleanup !== undefined;
  const steps: StepPreview[] = [];
  if (hasCleanup) {
    const cleanup = await renderLoaded(before, 'cleanup', {}, input.renderer);
    if (cleanup.ok) {
      for (const phase of cleanup.plan.phases) {
        for (const step of phase.steps) {
          steps.push({ phase: phase.name, step: step.name, changes: step.actions.map((a) => (a.action === 'delete' ? { change: 'delete' as const, ref: refOf(a.object) } : diffObject(undefined, a.object, mask))) });
        }
      }
    }
  }
  return { outcome: 'remove', instance, cleanupPlan: hasCleanup ? 'cleanup' : null, steps, pruned: prunedRefs(await objectsOf(before, ['deploy'], input.renderer), []) };
}

function detailLines(details: Record<string, unknown>): string[] {
  return Object.entries(details).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
}

async function frameworkChanges(base: FileTree, head: FileTree, headInstances: string[], fwCache: FrameworkCache): Promise<FrameworkPreview[]> {
  const [b, h] = await Promise.all([listFrameworks(base), listFrameworks(head)]);
  const key = (f: { name: string; version: string }): string => `${f.name}@${f.version}`;
  const all = new Map([...b, ...h].map((f) => [key(f), f]));
  const out: FrameworkPreview[] = [];
  const uses = await instanceUses(head, headInstances, fwCache);
  for (const [k, f] of [...all].sort(([x], [y]) => x.localeCompare(y))) {
    const inBase = b.some((x) => key(x) === k);
    const inHead = h.some((x) => key(x) === k);
    let change: FrameworkPreview['change'] | undefined;
    if (!inBase) change = 'added';
    else if (!inHead) change = 'removed';
    else if ((await digestAt(base, f)) !== (await digestAt(head, f))) change = 'changed';
    if (!change) continue;
    const sameName = uses.filter((u) => u.framework === f.name);
    out.push({
      name: f.name,
      version: f.version,
      change,
      instancesUsing: sameName.filter((u) => u.version === f.version).map((u) => u.id),
      instancesThatCouldMove: change === 'removed' ? [] : sameName.filter((u) => u.version !== f.version).map((u) => u.id),
    });
  }
  return out;
}

async function digestAt(tree: FileTree, f: { name: string; version: string }): Promise<string> {
  try {
    const loaded = await loadFramework(tree, f.name, f.version);
    return loaded.ok ? frameworkDigest(loaded.value) : `invalid:${loaded.problems.map((p) => p.message).join('|')}`;
  } catch (err) {
    return `error:${errorMessage(err)}`;
  }
}

async function instanceUses(tree: FileTree, files: string[], fwCache: FrameworkCache): Promise<{ id: string; framework: string; version: string }[]> {
  const out = [];
  for (const file of files) {
    const state = await instanceAt(tree, file, { lenient: true }, fwCache);
    if (!state.ok) continue;
    const id = idOf(file);
    out.push({ id: `${id.namespace}/${id.name}`, framework: state.framework.name, version: state.framework.version });
  }
  return out;
}

/**
 * Objects two instances of the head would both render (every plan of every instance): the change is
 * not acceptable, as the agent would refuse the second (OBJECT_OWNER_CONFLICT, render/object-owners.ts).
 */
async function ownershipConflicts(headAt: ReadonlyMap<string, InstanceAt>, renderer: Renderer): Promise<Problem[]> {
  const all: InstanceObjects[] = [];
  for (const [file, state] of headAt) {
    if (!state.ok) continue;
    const plans: RenderedPlan[] = [];
    for (const plan of Object.keys(state.framework.decl.plans)) {
      const r = await renderLoaded(state, plan, {}, renderer);
      if (r.ok) plans.push(r.plan);
    }
    all.push({ file, instance: { namespace: state.instance.namespace, name: state.instance.name }, objects: appliedObjectsOf(plans) });
  }
  return ownershipProblems(all);
}

/** `waits for \`baton plan continue shop/zk --plan deploy\` after step zk-0 of phase main` per canary wait. */
function waitsOf(instance: { namespace: string; name: string }, plan: RenderedPlan): { waits?: string[] } {
  const waits = canaryWaits(plan).map((w) => `waits for \`${continueCommand(instance, plan.plan)}\` ${waitPoint(w)}`);
  return waits.length > 0 ? { waits } : {};
}
