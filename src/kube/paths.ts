/** REST paths of the Kubernetes API: `/api/v1/...` for the core group, `/apis/<group>/<version>/...` otherwise. */
import type { ResourceInfo } from './client.js';

export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function prefix(info: ResourceInfo): string {
  return info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
}

/** Cluster-scoped kinds ignore the namespace; `undefined` lists across all namespaces. */
export function collectionPath(info: ResourceInfo, namespace: string | undefined): string {
  const ns = info.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix(info)}${ns}/${info.resource}`;
}

export function itemPath(info: ResourceInfo, namespace: string | undefined, name: string, subresource?: string): string {
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${collectionPath(info, namespace)}/${encodeURIComponent(name)}${sub}`;
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` from the defined values, or '' when none are. */
export function query(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
