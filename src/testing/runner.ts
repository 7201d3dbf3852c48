/**
 * Runs one framework test case against a cluster through the same path `baton apply` and the agent
 * take (load the instance, select, reconcile with the cluster checkpoint), then checks each step's
 * result and asserted objects. Takes a KubeClient: the CLI gives it the simulated cluster by default.
 */
import jsYaml from 'js-yaml';
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { refLabel, type ObjectRef } from '../kube/object.js';
import type { DesiredExtras } from '../plans/desired.js';
import { loadInstanceSource, reconcileSource } from '../plans/instance-source.js';
import type { ReconcileResult } from '../plans/reconcile.js';
import { API_VERSION, RenderProblemsError, maskSensitive, type FileTree, type Renderer } from '../render/index.js';
import type { TestCase, TestStepDecl } from '../render/index.js';
import { mismatches } from './match.js';
import { OverlayTree } from './overlay-tree.js';

export interface RunCaseOptions {
  /** The repository (or a tree holding `frameworks/<name>/<version>/`). */
  tree: FileTree;
  framework: { name: string; version: string };
  testCase: TestCase;
  client: KubeClient;
  renderer: Renderer;
  /** How long asserted objects may take to reach the expected state after a step. Default 10 s. */
  assertTimeoutMs?: number;
  onStep?: (step: StepResult) => void;
}

export type StepOutcome = 'COMPLETE' | 'FATAL_ERROR' | 'REFUSED' | 'NOTHING' | 'REMOVED' | 'INVALID';

export type StepResult =
  | { name: string; passed: true; outcome: StepOutcome; message: string }
  | { name: string; passed: false; outcome: StepOutcome; message: string; failures: string[] };

export interface CaseResult {
  name: string;
  file: string;
  passed: boolean;
  steps: StepResult[];
  durationMs: number;
}

export async function runTestCase(options: RunCaseOptions): Promise<CaseResult> {
  const started = Date.now();
  const { testCase } = options;
  const tree = new OverlayTree(options.tree);
  const instanceFile = `instances/${testCase.namespace}/${testCase.decl.instance}.yaml`;
  let params = testCase.decl.params;
  let version = options.framework.version;
  const steps: StepResult[] = [];
  for (const [index, step] of testCase.decl.steps.entries()) {
    params = step.params ?? params;
    version = step.version ?? version;
    tree.top.set(instanceFile, instanceYaml(options.framework.name, version, params));
    const name = step.name ?? `step ${index + 1}${step.plan ? ` (${step.plan})` : ''}`;
    const result = await runStep(options, tree, instanceFile, step, index, name);
    steps.push(result);
    options.onStep?.(result);
    if (!result.passed) break;
  }
  return { name: testCase.name, file: testCase.file, passed: steps.every((s) => s.passed) && steps.length === testCase.decl.steps.length, steps, durationMs: Date.now() - started };
}

function instanceYaml(framework: string, version: string, params: Record<string, unknown>): string {
  return jsYaml.dump({ apiVersion: API_VERSION, kind: 'Instance', framework, version, params }, { noRefs: true });
}

async function runStep(options: RunCaseOptions, tree: FileTree, instanceFile: string, step: TestStepDecl, index: number, name: string): Promise<StepResult> {
  const extras: DesiredExtras = step.remove ? { removed: true } : step.plan ? { request: { id: `test-step-${index}`, plan: step.plan, args: step.args ?? {}, explicit: true } } : {};
  let secrets: string[] = [];
  let outcome: StepOutcome;
  let message: string;
  try {
    const source = await loadInstanceSource(tree, instanceFile, options.renderer, extras, { values: { cluster: options.client } });
    secrets = source.sensitiveValues;
    const result = await reconcileSource(options.client, source);
    [outcome, message] = outcomeOf(result);
  } catch (err) {
    outcome = 'INVALID';
    message = err instanceof RenderProblemsError ? err.problems.map((p) => `${p.file}:${p.line}: ${p.code}: ${p.message}`).join('; ') : errorMessage(err);
  }
  message = maskSensitive(message, secrets);
  const failures: string[] = [];
  if (outcome !== step.expect) failures.push(`expected ${step.expect}, got ${outcome}: ${message}`);
  else failures.push(...(await checkObjects(options, step)).map((f) => maskSensitive(f, secrets)));
  return failures.length === 0 ? { name, passed: true, outcome, message } : { name, passed: false, outcome, message, failures };
}

function outcomeOf(result: ReconcileResult): [StepOutcome, string] {
  switch (result.kind) {
    case 'ran':
      return result.execution.outcome === 'failed'
        ? ['FATAL_ERROR', result.execution.error.message]
        : result.execution.outcome === 'complete'
          ? ['COMPLETE', `${result.execution.run.plan} complete`]
          : ['FATAL_ERROR', 'the plan was superseded'];
    case 'refused':
      return ['REFUSED', `${result.refusal.code}: ${result.refusal.message}`];
    case 'nothing':
      return ['NOTHING', result.reason];
    case 'removed':
      return ['REMOVED', `${result.report.deleted.length} objects deleted`];
  }
}

/** Asserted objects may settle a moment after the plan (controllers keep working): retry until the deadline. */
async function checkObjects(options: RunCaseOptions, step: TestStepDecl): Promise<string[]> {
  const deadline = Date.now() + (options.assertTimeoutMs ?? 10_000);
  for (;;) {
    const failures = [...(await Promise.all(step.assert.map((e) => checkPresent(options, e)))).flat(), ...(await Promise.all(step.absent.map((r) => checkAbsent(options, r)))).flat()];
    if (failures.length === 0 || Date.now() >= deadline) return failures;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function refIn(options: RunCaseOptions, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<ObjectRef> {
  const info = await options.client.resourceFor(ref.apiVersion, ref.kind);
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, ...(info.namespaced ? { namespace: ref.namespace ?? options.testCase.namespace } : {}) };
}

async function checkPresent(options: RunCaseOptions, expected: Record<string, unknown>): Promise<string[]> {
  const meta = (expected.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  if (typeof expected.apiVersion !== 'string' || typeof expected.kind !== 'string' || typeof meta.name !== 'string') {
    return ['an assert needs apiVersion, kind and metadata.name'];
  }
  try {
    const ref = await refIn(options, { apiVersion: expected.apiVersion, kind: expected.kind, name: meta.name, ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}) });
    const live = await options.client.get(ref);
    if (!live) return [`${refLabel(ref)} does not exist`];
    return mismatches(expected, live).map((m) => `${refLabel(ref)}: ${m}`);
  } catch (err) {
    return [`${expected.kind} ${meta.name}: ${errorMessage(err)}`];
  }
}

async function checkAbsent(options: RunCaseOptions, r: { apiVersion: string; kind: string; name: string }): Promise<string[]> {
  try {
    const ref = await refIn(options, r);
    return (await options.client.get(ref)) ? [`${refLabel(ref)} exists but should not`] : [];
  } catch (err) {
    // A kind the cluster does not serve has no objects: absent holds.
    return (err as { reason?: unknown }).reason === 'NotFound' ? [] : [`${r.kind} ${r.name}: ${errorMessage(err)}`];
  }
}
