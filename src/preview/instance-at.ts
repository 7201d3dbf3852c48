/**
 * One instance as it stands at one tree (the base or the head of a change): its file, the framework
 * version it points at, its resolved values and the desired state plan selection reads. Problems stay
 * located in the user's files. Encrypted values are decrypted when an age key is given; without one,
 * and for valuesFrom (a preview never reads the cluster's Secrets), placeholders are rendered and
 * `notes` say what was not checked. The tenant rules of the tree apply.
 */
import { desiredStateOf } from '../plans/desired.js';
import type { DesiredState } from '../plans/selection.js';
import { frameworkProblems, hasErrors, loadInstance, loadInstanceFramework, loadSettings } from '../render/index.js';
import type { FileTree, Framework, FrameworkCache, Instance, Problem } from '../render/index.js';
import type { TenantDecl } from '../render/schemas.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { resolveInstanceParams } from '../secrets/resolve-params.js';
import { instanceViolations } from '../tenancy/rules.js';
import { clusterViolations } from '../clusters/rules.js';

export type InstanceAt =
  | { ok: true; instance: Instance; framework: Framework; values: Record<string, unknown>; sensitiveValues: string[]; desired: DesiredState; text: string; notes: Problem[]; tenants?: readonly TenantDecl[] }
  | { ok: false; problems: Problem[]; sensitiveValues: string[]; text: string };

/** `frameworks`: the preview's framework versions by tree id (an unchanged version is parsed once for the base, the head and every instance). */
export async function instanceAt(tree: FileTree, file: string, values: ValuesContext = {}, frameworks?: FrameworkCache): Promise<InstanceAt> {
  const bytes = await tree.read(file);
  const text = bytes === undefined ? '' : new TextDecoder().decode(bytes);
  const inst = await loadInstance(tree, file);
  if (!inst.ok) return { ok: false, problems: inst.problems, sensitiveValues: [], text };
  const settings = await loadSettings(tree);
  // As the agent: an invalid baton.yaml refuses the instance with its own located problems.
  if (!settings.ok) return { ok: false, problems: settings.problems, sensitiveValues: [], text };
  const tenants = settings.value.decl.tenants;
  const tenancy = [
    ...instanceViolations(tenants, { file: inst.value.file, namespace: inst.value.namespace, framework: inst.value.decl.framework, locate: (path) => inst.value.source.locate(path) }),
    ...clusterViolations(settings.value.decl.clusters, { file: inst.value.file, cluster: inst.value.decl.cluster, locate: (path) => inst.value.source.locate(path) }),
  ];
  if (hasErrors(tenancy)) return { ok: false, problems: tenancy, sensitiveValues: [], text };
  const fw = await loadInstanceFramework(tree, inst.value, frameworks);
  if (!fw.ok) return { ok: false, problems: [...inst.problems, ...fw.problems], sensitiveValues: [], text };
  // As the agent: a framework that validate rejects is refused, not previewed as if it would run.
  const unsound = frameworkProblems(fw.value).filter((p) => p.severity === 'error');
  if (unsound.length > 0) return { ok: false, problems: unsound, sensitiveValues: [], text };
  const resolved = await resolveInstanceParams(tree, inst.value, fw.value, { ...values, lenient: true });
  if (hasErrors(resolved.problems)) return { ok: false, problems: resolved.problems, sensitiveValues: resolved.sensitiveValues, text };
  const framework = { ...fw.value, params: resolved.decls };
  return {
    ok: true,
    instance: inst.value,
    framework,
    values: resolved.values,
    sensitiveValues: resolved.sensitiveValues,
    desired: desiredStateOf(framework, resolved.values),
    text,
    notes: resolved.problems.filter((p) => p.code === 'SOPS_NO_KEY' || p.code === 'VALUES_FROM_UNSEEN'),
    ...(tenants ? { tenants } : {}),
  };
}
