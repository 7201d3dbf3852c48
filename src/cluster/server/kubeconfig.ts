/**
 * The kubeconfig written for simulated clusters. It works unchanged with kubectl and client-node:
 * for http:// the cluster entry says `insecure-skip-tls-verify: true` (client-node refuses otherwise);
 * for https:// it carries the self-signed certificate as the CA. One file may hold several clusters
 * (`--clusters N`) and several users with their tokens and a context each (`--rbac --user ...`).
 */
import yaml from 'js-yaml';

export interface KubeconfigCluster {
  name: string;
  url: string;
  /** PEM of the server's self-signed certificate (https only). */
  caCert?: string;
}

export interface KubeconfigUser {
  name: string;
  token?: string;
}

export interface KubeconfigContext {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
}

export interface KubeconfigDocument {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  current: string;
}

export function kubeconfigDocument(doc: KubeconfigDocument): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: doc.clusters.map((c) => ({
      name: c.name,
      cluster: c.caCert ? { server: c.url, 'certificate-authority-data': Buffer.from(c.caCert).toString('base64') } : { server: c.url, 'insecure-skip-tls-verify': true },
    })),
    users: doc.users.map((u) => ({ name: u.name, user: u.token ? { token: u.token } : {} })),
    contexts: doc.contexts.map((c) => ({ name: c.name, context: { cluster: c.cluster, user: c.user, namespace: c.namespace ?? 'default' } })),
    'current-context': doc.current,
    preferences: {},
  };
  return yaml.dump(config, { lineWidth: -1 });
}

export interface KubeconfigInput {
  url: string;
  token?: string;
  caCert?: string;
  name?: string;
  namespace?: string;
}

/** One cluster, one user, one context. */
export function kubeconfigYaml(input: KubeconfigInput): string {
  const name = input.name ?? 'baton-sim';
  return kubeconfigDocument({
    clusters: [{ name, url: input.url, ...(input.caCert ? { caCert: input.caCert } : {}) }],
    users: [{ name, ...(input.token ? { token: input.token } : {}) }],
    contexts: [{ name, cluster: name, user: name, ...(input.namespace ? { namespace: input.namespace } : {}) }],
    current: name,
  });
}
