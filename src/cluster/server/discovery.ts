/**
 * Discovery documents, built on every request from the registry's current resource types, so a CRD
 * that comes or goes changes what clients see at once (kubectl re-reads discovery with a fresh cache).
 * Both legacy discovery (`/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`) and aggregated discovery
 * (`apidiscovery.k8s.io` v2 and v2beta1) are served; which one is picked by the Accept header.
 */
import type { ResourceType } from '../store/types.js';
import { apiVersionOf } from '../store/types.js';

export type AggregatedVersion = 'v2' | 'v2beta1';

/** The group versions served, core first, then groups in first-seen order (built-ins before CRDs). */
export function groupVersions(types: readonly ResourceType[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const t of types) {
    const versions = groups.get(t.group) ?? [];
    if (!versions.includes(t.version)) versions.push(t.version);
    groups.set(t.group, versions);
  }
  for (const versions of groups.values()) versions.sort(compareKubeVersions);
  return groups;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2 > v1beta1). */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = rank(a);
  const [sb, mb, nb] = rank(b);
  return sb - sa || mb - ma || nb - na || a.localeCompare(b);
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(types: readonly ResourceType[]): Record<string, unknown> {
  const groups = [...groupVersions(types)].filter(([g]) => g !== '').map(([name, versions]) => ({
    name,
    versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
    preferredVersion: { groupVersion: `${name}/${versions[0] ?? ''}`, version: versions[0] ?? '' },
  }));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** `/api/v1` or `/apis/<g>/<v>`; undefined when the group version is not served (404). */
export function apiResourceList(types: readonly ResourceType[], group: string, version: string): Record<string, unknown> | undefined {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of served) {
    resources.push({
      name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs,
      ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length > 0 ? { categories: t.categories } : {}),
    });
    for (const sub of subresourcesOf(t)) {
      resources.push({ name: `${t.resource}/${sub.name}`, singularName: '', namespaced: t.namespaced, ...sub.kind, verbs: sub.verbs });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}

interface SubresourceInfo { name: string; kind: { group?: string; version?: string; kind: string }; verbs: string[] }

function subresourcesOf(t: ResourceType): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (t.subresources.status) out.push({ name: 'status', kind: { kind: t.kind }, verbs: ['get', 'patch', 'update'] });
  if (t.subresources.scale) out.push({ name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] });
  for (const c of t.connect ?? []) out.push({ name: c.name, kind: c.kind ?? { kind: t.kind }, verbs: c.verbs });
  return out;
}

/**
 * The aggregated discovery list for `/api` (core only) or `/apis` (every named group). kubectl uses it
 * only when the response's Content-Type is exactly the negotiated media type.
 */
export function aggregatedDiscovery(types: readonly ResourceType[], scope: 'core' | 'groups', version: AggregatedVersion): Record<string, unknown> {
  const items = [...groupVersions(types)]
    .filter(([g]) => (scope === 'core' ? g === '' : g !== ''))
    .map(([group, versions]) => ({
      metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
      versions: versions.map((v) => ({
        version: v,
        resources: types.filter((t) => t.group === group && t.version === v).map(aggregatedResource),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

function aggregatedResource(t: ResourceType): Record<string, unknown> {
  return {
    resource: t.resource,
    responseKind: { group: t.group, version: t.version, kind: t.kind },
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.verbs,
    ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
    ...(t.categories.length > 0 ? { categories: t.categories } : {}),
    ...(subresourcesOf(t).length > 0
      ? {
          subresources: subresourcesOf(t).map((s) => ({
            subresource: s.name,
            responseKind: { group: s.kind.group ?? t.group, version: s.kind.version ?? t.version, kind: s.kind.kind },
            verbs: s.verbs,
          })),
        }
      : {}),
  };
}

/** The media type for aggregated discovery, exactly as kubectl compares it. */
export function aggregatedMediaType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}
