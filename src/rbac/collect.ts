/**
 * What a repository's frameworks create: every plan of every framework version rendered with its
 * defaults (required parameters get a sample value of their type, as `baton validate` does), and the
 * kinds of the objects they apply or delete. Objects a template renders only for other values are not
 * seen; the docs say so and `--kind` adds them.
 */
import { hasErrors, isRequired, listFrameworks, listInstances, loadFramework, loadInstance, resolveParams, renderPlan, type FileTree, type Renderer } from '../render/index.js';
import { sampleValue } from '../render/params.js';
import type { KubeObject } from '../kube/object.js';
import type { Problem } from '../render/problems.js';

export interface FrameworkObjects {
  name: string;
  version: string;
  objects: KubeObject[];
  problems: Problem[];
}

export interface InstanceUse {
  file: string;
  namespace: string;
  framework: string;
  version: string;
}

export async function frameworkObjects(tree: FileTree, renderer: Renderer, only?: ReadonlySet<string>): Promise<FrameworkObjects[]> {
  const out: FrameworkObjects[] = [];
  for (const { name, version } of await listFrameworks(tree)) {
    if (only !== undefined && !only.has(`${name}@${version}`)) continue;
    const loaded = await loadFramework(tree, name, version);
    if (!loaded.ok) {
      out.push({ name, version, objects: [], problems: loaded.problems });
      continue;
    }
    const fw = loaded.value;
    const values: Record<string, unknown> = {};
    for (const p of fw.params) if (isRequired(p) && (p.default === undefined || p.default === null)) values[p.name] = sampleValue(p);
    const resolved = resolveParams(fw.params, values, undefined, `${fw.dir}/params.yaml`);
    const objects: KubeObject[] = [];
    const problems: Problem[] = [...resolved.problems];
    if (!hasErrors(resolved.problems)) {
      for (const plan of Object.keys(fw.decl.plans).sort()) {
        const r = await renderPlan({ framework: fw, instance: { name: 'rbac', namespace: 'rbac' }, params: resolved.values, sensitiveValues: resolved.sensitiveValues, plan, renderer });
        if (!r.ok) {
          problems.push(...r.problems.filter((p) => p.severity === 'error'));
          continue;
        }
        for (const ph of r.plan.phases) for (const s of ph.steps) for (const a of s.actions) objects.push(a.object);
      }
    }
    out.push({ name, version, objects, problems });
  }
  return out;
}

/** The instances of the repository with the framework version each uses (files that do not load are skipped). */
export async function instanceUses(tree: FileTree): Promise<InstanceUse[]> {
  const out: InstanceUse[] = [];
  for (const file of await listInstances(tree)) {
    const inst = await loadInstance(tree, file);
    if (inst.ok) out.push({ file, namespace: inst.value.namespace, framework: inst.value.decl.framework, version: inst.value.decl.version });
  }
  return out;
}
