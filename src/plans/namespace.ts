/**
 * The instance's namespace is created when it does not exist (CONTRACT.md, "How a plan runs").
 *
 * Looked up once per client and namespace for a short while, not once per instance run (issue #20: a
 * GET per instance, and with 16 runs at once in a new namespace a burst of creates that all but one
 * lost with 409). Concurrent runs share one lookup. A namespace deleted meanwhile is noticed when the
 * run's first write into it fails: the caller forgets it (`forgetNamespace`) and the next run creates
 * it again; at worst `KNOWN_FOR_MS` after the deletion.
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';

/** How long a namespace seen or created counts as existing without asking again. */
export const KNOWN_FOR_MS = 10_000;

interface Known {
  result: Promise<'created' | 'exists'>;
  at: number;
}

const known = new WeakMap<KubeClient, Map<string, Known>>();

export function ensureNamespace(client: KubeClient, namespace: string, now: () => number = Date.now): Promise<'created' | 'exists'> {
  const byName = known.get(client) ?? new Map<string, Known>();
  known.set(client, byName);
  const cached = byName.get(namespace);
  if (cached !== undefined && now() - cached.at < KNOWN_FOR_MS) return cached.result.then(() => 'exists');
  const result = lookUpOrCreate(client, namespace);
  const entry: Known = { result, at: now() };
  byName.set(namespace, entry);
  // A failed lookup is not remembered.
  result.catch(() => { if (byName.get(namespace) === entry) byName.delete(namespace); });
  return result;
}

/** Forget what is known of `namespace` (a write into it failed: it may be gone). */
export function forgetNamespace(client: KubeClient, namespace: string): void {
  known.get(client)?.delete(namespace);
}

async function lookUpOrCreate(client: KubeClient, namespace: string): Promise<'created' | 'exists'> {
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: namespace };
  if ((await client.get(ref)) !== undefined) return 'exists';
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'app.kubernetes.io/managed-by': 'baton' } } }, { fieldManager: 'baton' });
    return 'created';
  } catch (err) {
    // Another process (or a parallel reconcile of a sibling instance) created it first.
    if (err instanceof KubeApiError && err.status === 409) return 'exists';
    throw err;
  }
}
