/**
 * One instance as it stands at one tree (the base or the head of a change): its file, the framework
 * version it points at, its resolved values and the desired state plan selection reads. Problems stay
 * located in the user's files.
 */
import { desiredStateOf } from '../plans/desired.js';
import type { DesiredState } from '../plans/selection.js';
import { frameworkProblems, hasErrors, loadInstance, loadInstanceFramework, resolveParams } from '../render/index.js';
import type { FileTree, Framework, Instance, Problem } from '../render/index.js';

export type InstanceAt =
  | { ok: true; instance: Instance; framework: Framework; values: Record<string, unknown>; sensitiveValues: string[]; desired: DesiredState; text: string }
  | { ok: false; problems: Problem[]; sensitiveValues: string[]; text: string };

export async function instanceAt(tree: FileTree, file: string): Promise<InstanceAt> {
  const bytes = await tree.read(file);
  const text = bytes === undefined ? '' : new TextDecoder().decode(bytes);
  const inst = await loadInstance(tree, file);
  if (!inst.ok) return { ok: false, problems: inst.problems, sensitiveValues: [], text };
  const fw = await loadInstanceFramework(tree, inst.value);
  if (!fw.ok) return { ok: false, problems: [...inst.problems, ...fw.problems], sensitiveValues: [], text };
  // As the agent: a framework that validate rejects is refused, not previewed as if it would run.
  const unsound = frameworkProblems(fw.value).filter((p) => p.severity === 'error');
  if (unsound.length > 0) return { ok: false, problems: unsound, sensitiveValues: [], text };
  const resolved = resolveParams(fw.value.params, inst.value.decl.params, { source: inst.value.source, path: ['params'] }, `${fw.value.dir}/params.yaml`);
  if (hasErrors(resolved.problems)) return { ok: false, problems: resolved.problems, sensitiveValues: resolved.sensitiveValues, text };
  return {
    ok: true,
    instance: inst.value,
    framework: fw.value,
    values: resolved.values,
    sensitiveValues: resolved.sensitiveValues,
    desired: desiredStateOf(fw.value, resolved.values),
    text,
  };
}
