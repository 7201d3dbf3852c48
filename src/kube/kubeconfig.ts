/**
 * kubeconfig loading through client-node's `KubeConfig` (KUBECONFIG with several paths, ~/.kube/config,
 * contexts, in-cluster service account, tokens, client certificates, exec and auth providers, proxy-url). Only
 * auth and TLS come from client-node: requests are Baton's own (its typed models drop unknown fields).
 * client-node is imported lazily: it costs most of a second to load, and URL clients never need it;
 * for fixed credentials it loads in a child process only (see connectionFromKubeconfig).
 */
import type https from 'node:https';
import http, { type OutgoingHttpHeaders } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
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
  /**
   * Resolve the kubeconfig in a short-lived child process (a long-running agent): client-node then
   * never loads into this process unless the credentials rotate or a proxy is set (see connectionFromKubeconfig).
   * Not with `kubeconfigText` (a Secret's text is resolved here).
   */
  apart?: boolean;
}

/**
 * The settings a kubeconfig resolves to, as plain data (it crosses a process boundary): the server,
 * TLS material (base64), the auth headers, the namespace. `inProcess`: the credentials rotate (an exec
 * plugin, an auth provider) or a proxy-url is set, so the connection needs client-node in the process.
 */
export interface ResolvedKubeconfig {
  server: string;
  source: string;
  context: string;
  namespace?: string;
  tls: { ca?: string[]; cert?: string[]; key?: string[]; rejectUnauthorized?: boolean; servername?: string };
  headers: Record<string, string>;
  /** A token read from this file, again every minute (the in-cluster service account's, which rotates). */
  tokenFile?: string;
  inProcess: boolean;
}

/**
 * A connection from a kubeconfig. With `apart` (the agent), client-node is loaded in a short-lived child
 * process that resolves the kubeconfig to plain settings: importing it costs about 70 MiB of resident
 * memory for good (its generated API), which an agent holding thousands of instances cannot spare.
 * Rotating credentials and proxies load it here anyway, as they need it for every request; one-shot
 * commands load it here too (a child process would only add start-up time).
 */
export async function connectionFromKubeconfig(options: KubeconfigOptions): Promise<Connection> {
  const resolved = options.apart === true && options.kubeconfigText === undefined ? await resolvedApart(options) : undefined;
  if (resolved === undefined || resolved.inProcess) return connectionInProcess(options);
  const baseUrl = parseServerUrl(resolved.server, resolved.source);
  const tls: TlsSettings = {};
  const bytes = (list: string[] | undefined): Buffer[] | undefined => list?.map((b) => Buffer.from(b, 'base64'));
  const ca = bytes(resolved.tls.ca);
  const cert = bytes(resolved.tls.cert);
  const key = bytes(resolved.tls.key);
  if (ca) tls.ca = ca;
  if (cert) tls.cert = cert;
  if (key) tls.key = key;
  if (resolved.tls.rejectUnauthorized !== undefined) tls.rejectUnauthorized = resolved.tls.rejectUnauthorized;
  if (resolved.tls.servername !== undefined) tls.servername = resolved.tls.servername;
  const fixed = resolved.headers;
  const tokenFile = resolved.tokenFile;
  const headers = tokenFile === undefined ? async (): Promise<Record<string, string>> => fixed : tokenFromFile(fixed, tokenFile);
  return {
    baseUrl, agent: makeAgent(baseUrl, tls), watchAgent: makeAgent(baseUrl, tls, Infinity), headers,
    defaultNamespace: resolved.namespace || 'default', origin: `kubeconfig ${resolved.source}, context ${resolved.context}`,
  };
}

/** Bearer token from a file, read again when a minute old (as client-node's FileAuth and client-go do). */
function tokenFromFile(fixed: Record<string, string>, file: string): () => Promise<Record<string, string>> {
  let token: { value: string; at: number } | undefined;
  return async () => {
    if (token === undefined || Date.now() - token.at > 60_000) {
      try {
        token = { value: (await readFile(file, 'utf8')).trim(), at: Date.now() };
      } catch (err) {
        throw new KubeConfigError(`cannot read the service account token ${file}: ${errorMessage(err)}`, { file }, err);
      }
    }
    return { ...fixed, authorization: `Bearer ${token.value}` };
  };
}

/** One child process per kubeconfig and context (an agent's tenant clients share the resolution). */
const resolutions = new Map<string, Promise<ResolvedKubeconfig | undefined>>();

function resolvedApart(options: KubeconfigOptions): Promise<ResolvedKubeconfig | undefined> {
  const { kubeconfigPath, context } = options;
  const key = JSON.stringify([kubeconfigPath, context, process.env.KUBECONFIG]);
  let known = resolutions.get(key);
  if (known === undefined) {
    known = resolveOutOfProcess({ ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), ...(context !== undefined ? { context } : {}) });
    resolutions.set(key, known);
    // A failure is not kept: the next client tries again (the file may be fixed meanwhile).
    known.catch(() => resolutions.delete(key));
  }
  return known;
}

/**
 * Runs kubeconfig-child in a process of its own (the same runtime: compiled JavaScript, or the sources
 * through tsx); undefined when that process cannot run at all (then the kubeconfig loads here).
 */
async function resolveOutOfProcess(options: KubeconfigOptions): Promise<ResolvedKubeconfig | undefined> {
  const here = fileURLToPath(import.meta.url);
  const child = join(dirname(here), here.endsWith('.ts') ? 'kubeconfig-child.ts' : 'kubeconfig-child.js');
  const args = [...(here.endsWith('.ts') ? ['--import', 'tsx'] : []), child, JSON.stringify(options)];
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, args, { env: process.env, timeout: 60_000, maxBuffer: 16 << 20 }));
  } catch {
    return undefined;
  }
  let reply: { ok: true; value: ResolvedKubeconfig } | { ok: false; message: string; context: Record<string, unknown> };
  try {
    reply = JSON.parse(stdout.trim().split('\n').pop() ?? '') as typeof reply;
  } catch {
    return undefined;
  }
  if (!reply.ok) throw new KubeConfigError(reply.message, reply.context);
  return reply.value;
}

/** The kubeconfig loaded with client-node (in kubeconfig-child's process, or here for rotating credentials). */
async function loadKubeconfig(options: KubeconfigOptions): Promise<{ kc: KubeConfig; auth: KubeConfig; source: string; server: string; first: https.RequestOptions }> {
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
  return { kc, auth, source, server: cluster.server, first };
}

/** What kubeconfig-child reports: the kubeconfig's settings as plain data. */
export async function resolveKubeconfig(options: KubeconfigOptions): Promise<ResolvedKubeconfig> {
  const { kc, source, server, first } = await loadKubeconfig(options);
  const user = kc.getCurrentUser();
  // The in-cluster account's token file is read here (no client-node needed); other auth providers and exec plugins are not.
  const provider = user?.authProvider as { name?: unknown; config?: Record<string, unknown> } | undefined;
  const tokenFile = provider?.name === 'tokenFile' ? provider.config?.tokenFile : undefined;
  const fileToken = typeof tokenFile === 'string' && user?.exec === undefined;
  const inProcess = user?.exec !== undefined || (user?.authProvider !== undefined && !fileToken) || kc.getCurrentCluster()?.proxyUrl !== undefined;
  const tls = tlsOf(first);
  const base64 = (v: TlsSettings['ca']): string[] | undefined => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).map((x) => Buffer.from(x).toString('base64')));
  const ca = base64(tls.ca);
  const cert = base64(tls.cert);
  const key = base64(tls.key);
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  return {
    server, source, context: kc.getCurrentContext(), ...(namespace ? { namespace } : {}), inProcess,
    tls: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(tls.rejectUnauthorized !== undefined ? { rejectUnauthorized: tls.rejectUnauthorized } : {}), ...(tls.servername !== undefined ? { servername: tls.servername } : {}) },
    headers: inProcess ? {} : withoutAuthorization(headersOf(first), fileToken),
    ...(fileToken ? { tokenFile } : {}),
  };
}

function withoutAuthorization(headers: Record<string, string>, drop: boolean): Record<string, string> {
  if (!drop) return headers;
  const { authorization: _token, ...rest } = headers;
  return rest;
}

/** The connection with client-node loaded in this process: rotating credentials (exec plugins, auth providers), proxies. */
async function connectionInProcess(options: KubeconfigOptions): Promise<Connection> {
  const { kc, auth, source, server, first } = await loadKubeconfig(options);
  const cluster = kc.getCurrentCluster();
  const baseUrl = parseServerUrl(server, source);
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
  const proxied = cluster?.proxyUrl && first.agent instanceof http.Agent ? first.agent : undefined;
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
