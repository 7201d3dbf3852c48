/** The instance's namespace is created when it does not exist (CONTRACT.md, "How a plan runs"). */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';

export async function ensureNamespace(client: KubeClient, namespace: string): Promise<'created' | 'exists'> {
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
