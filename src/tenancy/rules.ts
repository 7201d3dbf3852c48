/**
 * Tenancy (what Argo CD calls projects) as pure rules over baton.yaml `tenants`: which tenant an
 * instance file belongs to, and whether an instance (framework, namespace) and the objects its plans
 * render (kinds, namespaces, cluster-scoped kinds) are within what its tenant may do. Violations are
 * located problems, so validate, previews and the agent's refusals show the same text.
 */
import type { KubeObject } from '../kube/object.js';
import { groupOf } from '../kube/object.js';
import { problem, type Problem } from '../render/problems.js';
import type { TenantDecl } from '../render/schemas.js';
import type { RenderedPlan } from '../render/types.js';
import { matchesAny } from './glob.js';

/** Namespaced kinds a tenant may create when its `kinds` are not given: what workloads need. */
export const DEFAULT_TENANT_KINDS: readonly string[] = [
  'ConfigMap', 'Secret', 'Service', 'ServiceAccount', 'PersistentVolumeClaim', 'Pod', 'Endpoints',
  'apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'apps/ReplicaSet',
  'batch/Job', 'batch/CronJob', 'autoscaling/HorizontalPodAutoscaler', 'policy/PodDisruptionBudget',
  'networking.k8s.io/NetworkPolicy', 'networking.k8s.io/Ingress',
];

export type TenantMatch =
  | { kind: 'none' }           // no tenants configured: everything is allowed
  | { kind: 'tenant'; tenant: TenantDecl }
  | { kind: 'unassigned' }     // tenants configured, but the file belongs to none
  | { kind: 'ambiguous'; tenants: string[] };

export function tenantOf(tenants: readonly TenantDecl[] | undefined, instanceFile: string): TenantMatch {
  if (tenants === undefined || tenants.length === 0) return { kind: 'none' };
  const matching = tenants.filter((t) => matchesAny(t.instances, instanceFile));
  if (matching.length === 0) return { kind: 'unassigned' };
  if (matching.length > 1) return { kind: 'ambiguous', tenants: matching.map((t) => t.name) };
  return { kind: 'tenant', tenant: matching[0]! };
}

/** `Kind` (core), `group/Kind`, `group/*` or `*` against an object's apiVersion and kind. */
export function kindMatches(pattern: string, apiVersion: string, kind: string): boolean {
  if (pattern === '*') return true;
  const group = groupOf(apiVersion);
  const slash = pattern.indexOf('/');
  if (slash < 0) return group === '' && pattern === kind;
  const [g, k] = [pattern.slice(0, slash), pattern.slice(slash + 1)];
  return g === group && (k === '*' || k === kind);
}

export interface InstanceFacts {
  file: string;
  namespace: string;
  framework: string;
  /** Locates a YAML path in the instance file (line, column). */
  locate?: (path: (string | number)[]) => { line: number; column: number };
}

/** The instance itself: it belongs to exactly one tenant, uses an allowed framework and targets an allowed namespace. */
export function instanceViolations(tenants: readonly TenantDecl[] | undefined, facts: InstanceFacts): Problem[] {
  const at = (path: (string | number)[]): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => ({ file: facts.file, path, ...(facts.locate?.(path) ?? { line: 1, column: 1 }) });
  const match = tenantOf(tenants, facts.file);
  switch (match.kind) {
    case 'none':
      return [];
    case 'unassigned':
      return [problem({ code: 'TENANT_NONE', ...at([]), message: `${facts.file} belongs to no tenant in baton.yaml: add its path to a tenant's instances` })];
    case 'ambiguous':
      return [problem({ code: 'TENANT_AMBIGUOUS', ...at([]), message: `${facts.file} matches the instances of several tenants (${match.tenants.join(', ')}): each instance must belong to one` })];
    case 'tenant':
      break;
  }
  const t = match.tenant;
  const out: Problem[] = [];
  if (!matchesAny(t.frameworks, facts.framework)) {
    out.push(problem({ code: 'TENANT_FRAMEWORK', ...at(['framework']), message: `tenant ${t.name} may not use framework ${facts.framework} (allowed: ${t.frameworks.join(', ')})` }));
  }
  if (!matchesAny(t.namespaces, facts.namespace)) {
    out.push(problem({ code: 'TENANT_NAMESPACE', ...at([]), message: `tenant ${t.name} may not deploy to namespace ${facts.namespace} (allowed: ${t.namespaces.join(', ')})` }));
  }
  return out;
}

function objectViolation(t: TenantDecl, obj: KubeObject, instanceNamespace: string): string | undefined {
  const what = `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name ?? ''}`;
  const ns = obj.metadata.namespace;
  if (ns === undefined) {
    // Rendering gives every namespaced kind the instance's namespace: no namespace means cluster-scoped.
    if (!t.clusterKinds.some((p) => kindMatches(p, obj.apiVersion, obj.kind))) {
      return `tenant ${t.name} may not create cluster-scoped ${what}${t.clusterKinds.length > 0 ? ` (allowed: ${t.clusterKinds.join(', ')})` : ' (cluster-scoped kinds are refused unless listed in clusterKinds)'}`;
    }
    return undefined;
  }
  const kinds = t.kinds ?? DEFAULT_TENANT_KINDS;
  if (!kinds.some((p) => kindMatches(p, obj.apiVersion, obj.kind))) return `tenant ${t.name} may not create ${obj.apiVersion} ${what} (allowed kinds: ${kinds.join(', ')})`;
  if (ns !== instanceNamespace && !matchesAny(t.namespaces, ns)) return `tenant ${t.name} may not write to namespace ${ns} (${what})`;
  return undefined;
}

/** The objects a rendered plan applies or deletes, against the tenant's kinds and namespaces. */
export function planViolations(tenants: readonly TenantDecl[] | undefined, instanceFile: string, plan: RenderedPlan, frameworkDir: string): Problem[] {
  const match = tenantOf(tenants, instanceFile);
  if (match.kind !== 'tenant') return [];
  const out: Problem[] = [];
  const seen = new Set<string>();
  for (const phase of plan.phases) {
    for (const step of phase.steps) {
      for (const action of step.actions) {
        const message = objectViolation(match.tenant, action.object, plan.instance.namespace);
        if (message === undefined || seen.has(message)) continue;
        seen.add(message);
        out.push(problem({ code: 'TENANT_KIND', file: `${frameworkDir}/templates/${action.template}`, message: `${message}; plan ${plan.plan}, step ${phase.name}/${step.name}` }));
      }
    }
  }
  return out;
}

/** The user the agent impersonates for an instance, when its tenant names a ServiceAccount. */
export function impersonationFor(tenants: readonly TenantDecl[] | undefined, instanceFile: string): string | undefined {
  const match = tenantOf(tenants, instanceFile);
  const sa = match.kind === 'tenant' ? match.tenant.serviceAccount : undefined;
  return sa ? `system:serviceaccount:${sa.namespace}:${sa.name}` : undefined;
}
