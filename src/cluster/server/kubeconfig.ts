/**
 * The kubeconfig written for the simulated cluster. It works unchanged with kubectl and client-node:
 * for http:// the cluster entry says `insecure-skip-tls-verify: true` (client-node refuses otherwise);
 * for https:// it carries the self-signed certificate as the CA.
 */
import yaml from 'js-yaml';

export interface KubeconfigInput {
  url: string;
  token?: string;
  /** PEM of the server's self-signed certificate (https only). */
  caCert?: string;
  name?: string;
  namespace?: string;
}

export function kubeconfigYaml(input: KubeconfigInput): string {
  const name = input.name ?? 'baton-sim';
  const cluster: Record<string, unknown> = { server: input.url };
  if (input.caCert) cluster['certificate-authority-data'] = Buffer.from(input.caCert).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: input.token ? { token: input.token } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: input.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  };
  return yaml.dump(config, { lineWidth: -1 });
}
