/** What a fresh (or restarted) cluster has: the standard namespaces and their content, the default RBAC policy, and the types of stored CRDs. */
import type { Core } from './core.js';
import { registerCrd } from './crd.js';
import { createObject } from './write.js';
import { namespaceContent } from './admission/namespace.js';
import { bootstrapPolicy } from './policy.js';

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function bootstrap(core: Core): void {
  for (const crd of core.scan('apiextensions.k8s.io/customresourcedefinitions', undefined)) registerCrd(core, crd);
  const nsType = core.registry.lookup('', 'v1', 'namespaces');
  if (!nsType) return;
  for (const name of SYSTEM_NAMESPACES) {
    if (!core.find('/namespaces', '', name)) createObject(core, nsType, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager: 'kube-apiserver' });
  }
  bootstrapPolicy(core);
  // Namespaces restored from an older data dir get their ServiceAccount and CA ConfigMap too.
  for (const ns of core.scan('/namespaces', undefined)) namespaceContent(core, ns);
}
