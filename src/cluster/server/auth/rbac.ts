/**
 * The RBAC authorizer, evaluated as kube-apiserver's does: a request is allowed when any rule of any
 * role bound to the user (by name, group or ServiceAccount) covers it. ClusterRoleBindings grant
 * everywhere; RoleBindings grant in their namespace (to a Role there or a ClusterRole). Rules match on
 * verbs, API groups, resources (`pods`, `pods/log`, `*`, `*\/scale`), resourceNames (named requests
 * only) and nonResourceURLs (exact, or a prefix ending in `*`). Denials carry the real message. Not
 * modelled: aggregation rules and escalation checks on writes to roles and bindings.
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Store } from '../../store/store.js';
import type { UserInfo } from './identity.js';

export interface ResourceAttributes {
  kind: 'resource';
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface NonResourceAttributes {
  kind: 'nonResource';
  verb: string;
  path: string;
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

type Obj = Record<string, unknown>;
const RBAC = 'rbac.authorization.k8s.io';
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function subjectMatches(subject: Obj, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return typeof subject.name === 'string' && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return user.username === `system:serviceaccount:${ns}:${String(subject.name)}`;
    }
    default:
      return false;
  }
}

function toRule(r: Obj): PolicyRule {
  const rule: PolicyRule = { verbs: strings(r.verbs) };
  if (Array.isArray(r.apiGroups)) rule.apiGroups = strings(r.apiGroups);
  if (Array.isArray(r.resources)) rule.resources = strings(r.resources);
  if (Array.isArray(r.resourceNames)) rule.resourceNames = strings(r.resourceNames);
  if (Array.isArray(r.nonResourceURLs)) rule.nonResourceURLs = strings(r.nonResourceURLs);
  return rule;
}

function rulesOf(store: Store, roleRef: Obj, bindingNamespace: string): PolicyRule[] {
  const kind = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
  const type = store.registry.lookup(RBAC, 'v1', kind);
  if (!type) return [];
  try {
    const role = store.get(type, kind === 'roles' ? bindingNamespace : undefined, String(roleRef.name));
    return Array.isArray(role.rules) ? role.rules.filter(isRecord).map(toRule) : [];
  } catch {
    return [];
  }
}

function bindings(store: Store, resource: 'clusterrolebindings' | 'rolebindings', namespace?: string): KubeObject[] {
  const type = store.registry.lookup(RBAC, 'v1', resource);
  return type ? store.list(type, namespace).items : [];
}

/** Every rule that applies to the user in a namespace ('' or undefined: cluster-wide only). */
export function rulesFor(store: Store, user: UserInfo, namespace: string | undefined): PolicyRule[] {
  const out: PolicyRule[] = [];
  const bound = (b: KubeObject, ns: string): boolean => Array.isArray(b.subjects) && b.subjects.some((s) => subjectMatches(asObj(s), user, ns));
  for (const b of bindings(store, 'clusterrolebindings')) if (bound(b, '')) out.push(...rulesOf(store, asObj(b.roleRef), ''));
  if (namespace) for (const b of bindings(store, 'rolebindings', namespace)) if (bound(b, namespace)) out.push(...rulesOf(store, asObj(b.roleRef), namespace));
  return out;
}

const has = (list: string[] | undefined, value: string): boolean => (list ?? []).some((v) => v === '*' || v === value);

function resourceMatches(rule: PolicyRule, resource: string, subresource: string | undefined): boolean {
  const full = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some((r) => r === '*' || r === full || (subresource !== undefined && r === `*/${subresource}`));
}

export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.kind === 'nonResource') return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  if (!has(rule.apiGroups, a.group) || !resourceMatches(rule, a.resource, a.subresource)) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) return a.name !== undefined && rule.resourceNames.includes(a.name);
  return true;
}

export function isAllowed(store: Store, user: UserInfo, a: RequestAttributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  return rulesFor(store, user, a.kind === 'resource' ? a.namespace : undefined).some((r) => ruleAllows(r, a));
}

/** The 403 message kube-apiserver writes for a denied request. */
export function forbiddenMessage(user: UserInfo, a: RequestAttributes): string {
  if (a.kind === 'nonResource') return `forbidden: User "${user.username}" cannot ${a.verb} path "${a.path}"`;
  const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  const what = a.name ? `${qualified} "${a.name}"` : qualified;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${what} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}
