/**
 * What every namespace gets right after it is created, as kube-controller-manager's serviceaccount
 * and root-ca-cert-publisher controllers make them on a real cluster: the `default` ServiceAccount
 * and the `kube-root-ca.crt` ConfigMap with the cluster's CA (a placeholder on plain-http clusters).
 * The simulator makes them in the same write so that they exist with `--no-controllers` too.
 */
import type { KubeObject } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { createObject } from '../write.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const NO_CA_PLACEHOLDER = '# The simulated cluster serves plain HTTP: it has no certificate authority.\n';

export function namespaceContent(core: Core, namespace: KubeObject): void {
  const ns = namespace.metadata.name ?? '';
  if (ns === '' || namespace.metadata.deletionTimestamp !== undefined) return;
  const opts = { fieldManager: 'kube-controller-manager' };
  const sa = core.registry.lookup('', 'v1', 'serviceaccounts');
  const cm = core.registry.lookup('', 'v1', 'configmaps');
  if (sa && !core.find('/serviceaccounts', ns, 'default')) {
    createObject(core, sa, ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } }, opts);
  }
  if (cm && !core.find('/configmaps', ns, ROOT_CA_CONFIGMAP)) {
    const ca = core.options.rootCaPem ?? NO_CA_PLACEHOLDER;
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns, annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' } }, data: { 'ca.crt': ca } };
    createObject(core, cm, ns, body, opts);
  }
}
