/**
 * The least-privilege RBAC of the agent for a repository (`baton rbac`): per instance namespace a Role
 * with the verbs the plan engine uses on exactly the kinds the frameworks create there (plus Baton's
 * own needs: checkpoint ConfigMaps, Events, reading Pods for readiness explanations, Secrets and
 * ConfigMaps for valuesFrom), a ClusterRole for namespaces and the cluster-scoped kinds frameworks
 * create, and a Role in the agent's namespace for its leader Lease and the Secrets of its age keys
 * and notification credentials. With tenants, the agent itself only impersonates each tenant's
 * ServiceAccount, and `--tenant T` prints what that ServiceAccount needs for T's instances.
 */
import type { KubeObject } from '../kube/object.js';
import type { TenantDecl } from '../render/schemas.js';
import { tenantOf } from '../tenancy/index.js';
import type { FrameworkObjects, InstanceUse } from './collect.js';
import { crdResources, resourceOf } from './resources.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** What the engine does to the objects of a plan: server-side apply (create, patch), read, watch for gates, prune and Delete tasks. */
export const OBJECT_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const LABELS = { 'app.kubernetes.io/name': 'baton-agent', 'app.kubernetes.io/managed-by': 'baton-rbac' };

export interface RbacInput {
  frameworks: readonly FrameworkObjects[];
  instances: readonly InstanceUse[];
  tenants?: readonly TenantDecl[];
  /** Print the tenant's ServiceAccount's rules instead of the agent's. */
  tenant?: string;
  /** The agent's ServiceAccount (default baton-system/baton-agent). */
  serviceAccount: { namespace: string; name: string };
  /** One ClusterRole for namespaced kinds too, instead of a Role per instance namespace. */
  clusterWide?: boolean;
  /** Also print the instance namespaces (Roles need them to exist); default true. */
  namespaces?: boolean;
  /** Extra kinds (`group/Kind` or `Kind`) a template renders only for values other than its defaults. */
  extraKinds?: readonly { apiVersion: string; kind: string; clusterScoped: boolean }[];
}

export interface RbacOutput {
  objects: KubeObject[];
  warnings: string[];
}

type RuleSet = Map<string, Set<string>>; // "group\0resource" -> verbs

function add(set: RuleSet, group: string, resource: string, verbs: readonly string[]): void {
  const key = `${group}\0${resource}`;
  const v = set.get(key) ?? new Set<string>();
  for (const verb of verbs) v.add(verb);
  set.set(key, v);
}

/** Rules grouped by identical verbs, sorted, so the output is stable and short. */
export function toRules(set: RuleSet): PolicyRule[] {
  const byVerbs = new Map<string, Map<string, string[]>>();
  for (const [key, verbs] of [...set].sort(([a], [b]) => a.localeCompare(b))) {
    const [group = '', resource = ''] = key.split('\0');
    const v = [...verbs].sort().join(',');
    const groups = byVerbs.get(v) ?? new Map<string, string[]>();
    groups.set(group, [...(groups.get(group) ?? []), resource]);
    byVerbs.set(v, groups);
  }
  const rules: PolicyRule[] = [];
  for (const [verbs, groups] of byVerbs) for (const [group, resources] of groups) rules.push({ apiGroups: [group], resources, verbs: verbs.split(',') });
  return rules.sort((a, b) => `${a.apiGroups[0]}/${a.resources[0]}`.localeCompare(`${b.apiGroups[0]}/${b.resources[0]}`));
}

const meta = (name: string, namespace?: string): KubeObject['metadata'] => ({ name, ...(namespace ? { namespace } : {}), labels: LABELS });

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', roleKind: 'Role' | 'ClusterRole', name: string, subject: { namespace: string; name: string }, namespace?: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: meta(name, namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name },
    subjects: [{ kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace }],
  };
}

function role(kind: 'Role' | 'ClusterRole', name: string, rules: PolicyRule[], namespace?: string): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: meta(name, namespace), rules };
}

/** Baton's bookkeeping in each instance namespace, always under the agent's own account: checkpoints and Events. */
function bookkeeping(set: RuleSet): void {
  add(set, '', 'configmaps', ['create', 'delete', 'get', 'update']);
  add(set, '', 'events', ['create']);
}

/** Reads that go with the objects (under the tenant's account when it has one): Pods for readiness explanations, valuesFrom. */
function objectReads(set: RuleSet): void {
  add(set, '', 'pods', ['list']);
  add(set, '', 'secrets', ['get']);
  add(set, '', 'configmaps', ['get']);
}

/**
 * The agent's own namespace: its leader Lease, the Secrets holding age keys and notification
 * credentials, and the ConfigMap recording which cluster each baton.yaml name reached (src/clusters/identity.ts).
 */
function ownRole(base: string, sa: { namespace: string; name: string }): KubeObject[] {
  const own: RuleSet = new Map();
  add(own, '', 'configmaps', ['create', 'get', 'update']);
  // list and delete: shard members read each other's member Leases and delete those of members long gone.
  add(own, 'coordination.k8s.io', 'leases', ['create', 'delete', 'get', 'list', 'update']);
  add(own, '', 'secrets', ['get']);
  add(own, '', 'events', ['create']);
  return [role('Role', `${base}-self`, toRules(own), sa.namespace), binding('RoleBinding', 'Role', `${base}-self`, sa, sa.namespace)];
}

/** `impersonate` on each tenant's ServiceAccount, by namespace. */
function impersonationRules(tenants: readonly TenantDecl[]): PolicyRule[] {
  const byNs = new Map<string, string[]>();
  for (const t of tenants) if (t.serviceAccount) byNs.set(t.serviceAccount.namespace, [...(byNs.get(t.serviceAccount.namespace) ?? []), t.serviceAccount.name]);
  return [...byNs].sort().map(([, names]) => ({ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: names.sort() }));
}

function frameworkWarnings(uses: readonly InstanceUse[], byKey: ReadonlyMap<string, FrameworkObjects>): string[] {
  const out: string[] = [];
  for (const key of new Set(uses.map((u) => `${u.framework}@${u.version}`))) {
    const f = byKey.get(key);
    if (f === undefined) out.push(`framework ${key.replace('@', ' ')} (used by ${uses.filter((u) => `${u.framework}@${u.version}` === key).map((u) => u.file).join(', ')}) is not in the repository: its kinds are missing`);
    else if (f.problems.length > 0) out.push(`framework ${f.name} ${f.version} does not render with its defaults (${f.problems[0]?.message ?? ''}): its kinds are missing; fix it and run baton rbac again`);
  }
  return out;
}

interface Assembly {
  base: string;
  sa: { namespace: string; name: string };
  cluster: PolicyRule[];
  perNamespace: ReadonlyMap<string, RuleSet>;
  clusterWide: boolean;
  namespaces: boolean;
  own: boolean;
}

/** The printed objects: ClusterRole and binding, per-namespace Roles (or their rules in the ClusterRole), the agent's own Role. */
function assemble(a: Assembly): KubeObject[] {
  const objects: KubeObject[] = [];
  const merged: RuleSet = new Map();
  for (const rules of a.perNamespace.values()) for (const [key, verbs] of rules) { const [g = '', r = ''] = key.split('\0'); add(merged, g, r, [...verbs]); }
  objects.push(role('ClusterRole', a.base, [...a.cluster.slice(0, 1), ...(a.clusterWide ? toRules(merged) : []), ...a.cluster.slice(1)]), binding('ClusterRoleBinding', 'ClusterRole', a.base, a.sa));
  if (!a.clusterWide) {
    // Roles live in namespaces: create the instance namespaces with them (the agent would otherwise create them later).
    if (a.namespaces) for (const ns of a.perNamespace.keys()) objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const [ns, rules] of a.perNamespace) objects.push(role('Role', a.base, toRules(rules), ns), binding('RoleBinding', 'Role', a.base, a.sa, ns));
  }
  if (a.own) objects.push(...ownRole(a.base, a.sa));
  return objects;
}

export function generateRbac(input: RbacInput): RbacOutput {
  const warnings: string[] = [];
  const tenants = input.tenants ?? [];
  if (input.tenant !== undefined && !tenants.some((t) => t.name === input.tenant)) {
    throw new Error(`baton.yaml has no tenant ${input.tenant}${tenants.length > 0 ? ` (tenants: ${tenants.map((t) => t.name).join(', ')})` : ''}`);
  }
  const tenant = tenants.find((t) => t.name === input.tenant);
  const sa = tenant?.serviceAccount ?? input.serviceAccount;
  if (tenant !== undefined && tenant.serviceAccount === undefined) warnings.push(`tenant ${tenant.name} names no serviceAccount: the agent acts for it with its own account, so bind these rules to ${sa.namespace}/${sa.name}`);
  const base = tenant ? `baton-tenant-${tenant.name}` : 'baton-agent';
  const objects: KubeObject[] = [];

  const clusterRules: RuleSet = new Map();
  // With tenants, the agent's own account acts through the tenants' accounts: it needs only to impersonate them.
  const delegated = tenant === undefined && tenants.length > 0;
  /** Whose objects this account applies itself (the rest it only keeps the books for). */
  const appliesFor = (file: string): boolean => {
    const m = tenantOf(tenants, file);
    return tenant ? m.kind === 'tenant' && m.tenant.name === tenant.name : !delegated || (m.kind === 'tenant' && m.tenant.serviceAccount === undefined);
  };
  const uses = input.instances.filter((u) => appliesFor(u.file) || (tenant === undefined && delegated));
  const impersonate = delegated ? impersonationRules(tenants) : [];

  const namespaces = [...new Set(uses.map((u) => u.namespace))].sort();
  const crds = crdResources(input.frameworks.flatMap((f) => f.objects));
  const frameworkKey = (f: { name: string; version: string }): string => `${f.name}@${f.version}`;
  const byKey = new Map(input.frameworks.map((f) => [frameworkKey(f), f]));
  warnings.push(...frameworkWarnings(uses.filter((u) => appliesFor(u.file)), byKey));
  /** Adds the kinds of the given frameworks (and the extra kinds) to the namespaced and cluster rule sets. */
  const addKinds = (keys: Iterable<string>, nsRules: RuleSet, objectsToo: boolean): void => {
    if (tenant === undefined) bookkeeping(nsRules);
    if (!objectsToo) return;
    const kinds = [
      ...[...keys].flatMap((k) => (byKey.get(k)?.objects ?? []).map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, clusterScoped: o.metadata.namespace === undefined }))),
      ...(input.extraKinds ?? []),
    ];
    for (const k of kinds) {
      const r = resourceOf(k.apiVersion, k.kind, crds);
      if (r.guessed) warnings.push(`${k.kind} (${k.apiVersion}): resource name guessed as "${r.resource}" (no built-in or rendered CRD names it); check it against kubectl api-resources`);
      add(k.clusterScoped ? clusterRules : nsRules, r.group, r.resource, OBJECT_VERBS);
    }
    objectReads(nsRules);
  };
  // Each namespace gets the kinds of the frameworks its own instances use; --cluster-wide merges them.
  const perNamespace = new Map<string, RuleSet>();
  for (const ns of namespaces) {
    const rules: RuleSet = new Map();
    const here = uses.filter((u) => u.namespace === ns);
    addKinds(new Set(here.filter((u) => appliesFor(u.file)).map((u) => `${u.framework}@${u.version}`)), rules, here.some((u) => appliesFor(u.file)));
    perNamespace.set(ns, rules);
  }

  // Namespaces: the engine creates an instance's namespace when it is missing; a tenant's account only reads its own.
  const nsRule: PolicyRule = tenant
    ? { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], ...(namespaces.length > 0 ? { resourceNames: namespaces } : {}) }
    : { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'get'] };
  objects.push(...assemble({ base, sa, cluster: [nsRule, ...toRules(clusterRules), ...impersonate], perNamespace, clusterWide: input.clusterWide === true, namespaces: input.namespaces !== false, own: !tenant }));
  if (uses.length === 0) warnings.push(tenant ? `tenant ${tenant.name} has no instances in the repository: no namespace Roles` : 'no instances in the repository: only the agent\'s own rules');
  return { objects, warnings: [...new Set(warnings)] };
}
