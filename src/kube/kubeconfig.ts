/**
 * kubeconfig loading through client-node's `KubeConfig` (KUBECONFIG with several paths, ~/.kube/config,
 * contexts, in-cluster service account, tokens, client certificates, exec and auth providers, proxy-url). Only
 * auth and TLS come from client-node: requests are Baton's own (its typed models drop unknown fields).
 * client-node is imported lazily: it costs most of a second to load, and URL clients never need it.
 */
import type https from 'node:https';
import http, { type OutgoingHttpHeaders } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../errors.js';
import { makeAgent, parseServerUrl, type Connection, type TlsSettings } from './connection.js';
import { KubeConfigError } from './errors.js';

export interface KubeconfigOptions {
  /** A kubeconfig file; default: $KUBECONFIG (several paths merged), ~/.kube/config, in-cluster. */
  kubeconfigPath?: string;
  /** Context name; default: the kubeconfig's current-context. */
  context?: string;
  /** A kubeconfig's text instead of a file (read from a Secret); `source` names it in errors. */
  kubeconfigText?: { text: string; source: string };
}

export async function connectionFromKubeconfig(options: KubeconfigOptions): Promise<Connection> {
  const { KubeConfig: KubeConfigClass } = await import('@kubernetes/client-node');
  const kc = new KubeConfigClass();
  const source = options.kubeconfigText?.source ?? options.kubeconfigPath ?? (process.env.KUBECONFIG || '~/.kube/config');
  try {
    if (options.kubeconfigText !== undefined) kc.loadFromString(options.kubeconfigText.text);
    else if (options.kubeconfigPath !== undefined) kc.loadFromFile(options.kubeconfigPath);
    else kc.loadFromDefault();
  } catch (err) {
    throw new KubeConfigError(`cannot load kubeconfig ${source}: ${errorMessage(err)}`, { source }, err);
  }
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      const known = kc.getContexts().map((c) => c.name).join(', ') || '(none)';
      throw new KubeConfigError(`${source}: no context "${options.context}" (contexts: ${known})`, { source, context: options.context });
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    throw new KubeConfigError(`${source}: current context "${kc.getCurrentContext()}" names no known cluster`, { source });
  }
  const baseUrl = parseServerUrl(cluster.server, source);
  const auth = baseUrl.protocol === 'http:' ? allowPlainHttp(kc, cluster.name) : kc;
  const first: https.RequestOptions = {};
  await auth.applyToHTTPSOptions(first);
  const user = kc.getCurrentUser();
  const rotating = user?.exec !== undefined || user?.authProvider !== undefined;
  const fixed = headersOf(first);
  const headers = rotating
    ? async (): Promise<Record<string, string>> => {
        const opts: https.RequestOptions = {};
        await auth.applyToHTTPSOptions(opts);
        return headersOf(opts);
      }
    : async (): Promise<Record<string, string>> => fixed;
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  // With a proxy-url, client-node's proxy agent (carrying the TLS settings) is the way out.
  const proxied = cluster.proxyUrl && first.agent instanceof http.Agent ? first.agent : undefined;
  const agent = proxied ?? makeAgent(baseUrl, tlsOf(first));
  const watchAgent = proxied ?? makeAgent(baseUrl, tlsOf(first), Infinity);
  return { baseUrl, agent, watchAgent, headers, defaultNamespace: namespace || 'default', origin: `kubeconfig ${source}, context ${kc.getCurrentContext()}` };
}

/**
 * client-node refuses `http://` servers unless insecure-skip-tls-verify is set (kubectl does not);
 * TLS settings mean nothing over plain HTTP, so a copy with the flag set yields the auth headers.
 */
function allowPlainHttp(kc: KubeConfig, clusterName: string): KubeConfig {
  const copy = new (kc.constructor as new () => KubeConfig)();
  copy.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === clusterName ? { ...c, skipTLSVerify: true } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return copy;
}

function headersOf(opts: https.RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const raw: OutgoingHttpHeaders = (opts.headers as OutgoingHttpHeaders | undefined) ?? {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  if (typeof opts.auth === 'string' && opts.auth !== '') {
    out.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  }
  return out;
}

function tlsOf(opts: https.RequestOptions): TlsSettings {
  const tls: TlsSettings = {};
  if (opts.ca !== undefined) tls.ca = opts.ca;
  if (opts.cert !== undefined) tls.cert = opts.cert;
  if (opts.key !== undefined) tls.key = opts.key as Buffer | string;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  if (opts.servername !== undefined) tls.servername = opts.servername;
  return tls;
}
