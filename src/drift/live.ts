/**
 * The live side of a sweep, read with lists, never one request per object: per kind, one list
 * across all namespaces by Baton's `managed-by` label (a namespace list instead when the kind lives
 * in one or two namespaces, or when the agent may not list cluster-wide). Pages of 500. A kind the
 * cluster no longer serves, or a list that fails, is reported per kind and namespace so the sweep
 * goes on for everything else.
 *
 * A cluster-wide list returns the managed objects of every instance, and a sweep may be of a few of
 * them (each instance is checked when its own interval passes): only the objects the caller asks for
 * (`wanted`) are kept, page by page, so the memory a sweep holds follows the instances swept, not the
 * size of the cluster (issue #20: at 10,000 instances every sweep held all 20,000 managed objects).
 * And the lists name the instances swept (`app.kubernetes.io/instance in (...)`, every managed object
 * and checkpoint carries its instance's label), up to INSTANCES_PER_LIST a list: the API server
 * returns only theirs, so the pages a sweep reads (and the garbage it makes) follow the sweep as well,
 * not the other instances of the cluster (a member of four read every member's objects, 30,000 at
 * 10,000 instances, in every sweep). An object whose label was edited away is not listed: the sweep
 * reads it with a get, as before.
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import type { KubeObject } from '../kube/object.js';
import { errorMessage } from '../errors.js';
import { LABEL_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../render/labels.js';
import type { SweepStats } from './types.js';

export const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`;
const PAGE = 500;
/** Up to this many namespaces a kind is listed namespace by namespace (cheaper than a cluster-wide list). */
const PER_NAMESPACE_MAX = 2;
/** Instances named in one list's selector (label values of up to 63 characters: a URL of a few KiB at most). */
export const INSTANCES_PER_LIST = 50;

export interface KindQuery {
  apiVersion: string;
  kind: string;
  /** Namespaces holding objects of this kind ('' for cluster-scoped objects). */
  namespaces: ReadonlySet<string>;
  /**
   * Only the objects of these instances (their `app.kubernetes.io/instance` label values): the lists
   * name them, INSTANCES_PER_LIST at a time. Undefined: every object the selector matches.
   */
  instances?: ReadonlySet<string>;
}

/** The selectors to list with: `selector` alone, or narrowed to the instances, a chunk of them each. */
export function instanceSelectors(selector: string, instances: ReadonlySet<string> | undefined): string[] {
  if (instances === undefined) return [selector];
  const values = [...instances].sort();
  const out: string[] = [];
  for (let i = 0; i < values.length; i += INSTANCES_PER_LIST) out.push(`${selector},${LABEL_INSTANCE} in (${values.slice(i, i + INSTANCES_PER_LIST).join(',')})`);
  return out;
}

export interface KindListing {
  /** Live objects by `namespace/name` ('' namespace when cluster-scoped). */
  objects: Map<string, KubeObject>;
  /** The cluster no longer serves the kind (its CRD was deleted): the message says so. */
  gone?: string;
  /** Namespaces whose list failed ('*' when the cluster-wide list failed), with the error. */
  failed: Map<string, string>;
}

const goneMessage = (q: KindQuery): string => `the cluster no longer serves ${q.kind} (${q.apiVersion}): was its CustomResourceDefinition deleted?`;

export const liveKey = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

/** The `namespace/name` keys (liveKey) to keep from a list; undefined keeps every object. */
export type WantedObjects = ReadonlySet<string> | undefined;

export async function listKind(client: KubeClient, query: KindQuery, selector: string, stats: SweepStats, wanted?: WantedObjects): Promise<KindListing> {
  const out: KindListing = { objects: new Map(), failed: new Map() };
  let namespaced: boolean;
  try {
    namespaced = (await client.resourceFor(query.apiVersion, query.kind)).namespaced;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) out.gone = goneMessage(query);
    else out.failed.set('*', errorMessage(err));
    return out;
  }
  const namespaces = [...query.namespaces].filter((n) => n !== '');
  const selectors = instanceSelectors(selector, query.instances);
  const each = async (namespace: string | undefined, failKey: string, fallback = false): Promise<'ok' | 'failed' | 'forbidden'> => {
    let result: 'ok' | 'failed' | 'forbidden' = 'ok';
    for (const s of selectors) {
      const r = await listInto(client, query, namespace, s, stats, out, failKey, wanted, fallback);
      if (r === 'forbidden') return r;
      if (r === 'failed') result = r;
    }
    return result;
  };
  if (!namespaced) {
    await each(undefined, '*');
    return out;
  }
  if (namespaces.length > PER_NAMESPACE_MAX) {
    const ok = await each(undefined, '*', true);
    if (ok !== 'forbidden') return out;
    out.failed.delete('*');
  }
  for (const ns of namespaces) await each(ns, ns);
  return out;
}

/** Lists page by page into `out`; 'forbidden' when a cluster-wide list is not allowed (the caller falls back). */
async function listInto(client: KubeClient, q: KindQuery, namespace: string | undefined, selector: string, stats: SweepStats, out: KindListing, failKey: string, wanted: WantedObjects, fallback = false): Promise<'ok' | 'failed' | 'forbidden'> {
  let token: string | undefined;
  try {
    do {
      const page = await client.list(q.apiVersion, q.kind, namespace, { labelSelector: selector, limit: PAGE, ...(token ? { continue: token } : {}) });
      stats.requests++;
      stats.lists++;
      stats.listed += page.items.length;
      for (const item of page.items) {
        const key = liveKey(item.metadata.namespace, item.metadata.name ?? '');
        if (wanted !== undefined && !wanted.has(key)) continue;
        out.objects.set(key, item);
        stats.kept++;
      }
      token = page.continue;
    } while (token !== undefined);
    return 'ok';
  } catch (err) {
    stats.requests++;
    if (fallback && err instanceof KubeApiError && err.status === 403) return 'forbidden';
    // A collection answers 404 only when its resource is not served (any more): discovery was stale.
    if (err instanceof KubeApiError && err.status === 404) {
      out.gone = goneMessage(q);
      return 'failed';
    }
    out.failed.set(failKey, errorMessage(err));
    return 'failed';
  }
}
