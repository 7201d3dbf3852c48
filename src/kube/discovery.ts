/**
 * Kind -> resource lookup from legacy discovery (`/api/v1`, `/apis/<g>/<v>`), cached per group-version.
 * A miss refreshes that group-version once, so a CRD established a moment ago is found; concurrent
 * misses share one refresh.
 */
import type { ResourceInfo } from './client.js';
import { KubeApiError } from './errors.js';
import { groupOf, isRecord } from './object.js';
import { groupVersionPath } from './paths.js';

/** What a lookup of a kind the server does not serve throws (any client: over HTTP or in-process). */
export function noResourceFor(apiVersion: string, kind: string): KubeApiError {
  return new KubeApiError(
    404,
    {
      kind: 'Status',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: `the server has no resource for kind "${kind}" in apiVersion "${apiVersion}"`,
      details: { kind, group: groupOf(apiVersion) },
    },
    { apiVersion, kind, discovery: true },
  );
}

export type FetchJson = (path: string) => Promise<unknown>;

export class Discovery {
  private readonly cache = new Map<string, Promise<ResourceInfo[]>>();

  constructor(private readonly fetchJson: FetchJson) {}

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const cached = this.cache.get(apiVersion);
    const first = cached ?? this.load(apiVersion);
    const hit = (await first).find((r) => r.kind === kind);
    if (hit) return hit;
    if (cached !== undefined) {
      const current = this.cache.get(apiVersion);
      const refreshed = current !== undefined && current !== cached ? current : this.load(apiVersion);
      const found = (await refreshed).find((r) => r.kind === kind);
      if (found) return found;
    }
    throw noResourceFor(apiVersion, kind);
  }

  /** Forget everything (e.g. after CRDs were deleted). */
  reset(): void {
    this.cache.clear();
  }

  private load(apiVersion: string): Promise<ResourceInfo[]> {
    const promise = this.fetch(apiVersion);
    this.cache.set(apiVersion, promise);
    // A failed fetch is not cached: the next call asks again.
    promise.catch(() => {
      if (this.cache.get(apiVersion) === promise) this.cache.delete(apiVersion);
    });
    return promise;
  }

  private async fetch(apiVersion: string): Promise<ResourceInfo[]> {
    let body: unknown;
    try {
      body = await this.fetchJson(groupVersionPath(apiVersion));
    } catch (err) {
      // An unknown group-version is an empty one: the lookup reports the kind as missing.
      if (err instanceof KubeApiError && err.status === 404) return [];
      throw err;
    }
    return parseResourceList(apiVersion, body);
  }
}

/** An `APIResourceList`; subresources (`pods/status`) are skipped. */
export function parseResourceList(apiVersion: string, body: unknown): ResourceInfo[] {
  if (!isRecord(body) || !Array.isArray(body.resources)) return [];
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const out: ResourceInfo[] = [];
  for (const entry of body.resources as unknown[]) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || typeof entry.kind !== 'string') continue;
    if (entry.name.includes('/')) continue;
    out.push({ group, version, resource: entry.name, kind: entry.kind, namespaced: entry.namespaced === true });
  }
  return out;
}
