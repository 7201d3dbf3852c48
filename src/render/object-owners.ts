/**
 * An object belongs to exactly one instance: two instances that render the same object (same API group,
 * kind, namespace and name, in any of their plans) would overwrite each other, and removing one would
 * delete the other's object. `baton validate` and previews refuse the second with OBJECT_OWNER_CONFLICT,
 * located at its instance file and naming the first (in file order); the engine refuses it at apply time
 * by the live object's `baton.dev/owner` annotation. Namespaces are shared and never conflict.
 *
 * A child of an Instance task is counted the same way (an `Instance` in the parent's namespace): two
 * instances whose plans render a child of the same name are CHILD_NAME_TAKEN at the second (the engine
 * refuses the parent that did not create the child by the child's checkpoint, compose/children/claim.ts).
 */
import { problem, type Problem } from './problems.js';
import type { RenderedPlan } from './types.js';

export interface RenderedObjectRef {
  /** `group/kind/namespace/name`. */
  key: string;
  label: string;
  plan: string;
  template: string;
  /** A child instance (`Instance <namespace>/<name>`): the Instance task that renders it. */
  childTask?: string;
}

export interface InstanceObjects {
  file: string;
  instance: { namespace: string; name: string };
  objects: RenderedObjectRef[];
}

/** The objects every plan of an instance applies. */
export function appliedObjectsOf(plans: readonly RenderedPlan[]): RenderedObjectRef[] {
  const out: RenderedObjectRef[] = [];
  for (const plan of plans) {
    for (const phase of plan.phases) {
      for (const step of phase.steps) {
        for (const a of step.actions) {
          if (a.action !== 'apply' || a.object.kind === 'Namespace') continue;
          const group = a.object.apiVersion.includes('/') ? a.object.apiVersion.split('/')[0]! : '';
          const ns = a.object.metadata.namespace ?? '';
          out.push({ key: `${group}/${a.object.kind}/${ns}/${a.object.metadata.name}`, label: `${a.object.kind} ${ns ? `${ns}/` : ''}${a.object.metadata.name}`, plan: plan.plan, template: a.template });
        }
        const ns = plan.instance.namespace;
        for (const c of step.children ?? []) out.push({ key: `baton.dev/Instance/${ns}/${c.name}`, label: `child instance ${ns}/${c.name}`, plan: plan.plan, template: '', childTask: c.task });
      }
    }
  }
  return out;
}

/** One problem per instance that renders an object an earlier instance (file order) renders too. */
export function ownershipProblems(instances: readonly InstanceObjects[]): Problem[] {
  const owners = new Map<string, { file: string; owner: string; ref: RenderedObjectRef }>();
  const problems: Problem[] = [];
  for (const inst of [...instances].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    const me = `${inst.instance.namespace}/${inst.instance.name}`;
    const reported = new Set<string>();
    for (const ref of inst.objects) {
      const first = owners.get(ref.key);
      if (first === undefined) {
        owners.set(ref.key, { file: inst.file, owner: me, ref });
        continue;
      }
      if (first.owner === me || reported.has(ref.key)) continue;
      reported.add(ref.key);
      if (ref.childTask !== undefined) {
        problems.push(problem({
          code: 'CHILD_NAME_TAKEN',
          file: inst.file,
          message: `${ref.label} (Instance task ${ref.childTask}) is also rendered by instance ${first.owner} (${first.file}, Instance task ${first.ref.childTask ?? '?'}): a child belongs to the parent that created it, and the other parent's step would be refused`,
        }));
        continue;
      }
      problems.push(problem({
        code: 'OBJECT_OWNER_CONFLICT',
        file: inst.file,
        message: `${ref.label} (plan ${ref.plan}, template ${ref.template}) is also rendered by instance ${first.owner} (${first.file}, template ${first.ref.template}): an object belongs to exactly one instance`,
      }));
    }
  }
  return problems;
}
