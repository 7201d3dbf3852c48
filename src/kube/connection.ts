/**
 * Where and how to reach an API server: base URL, a keep-alive agent carrying TLS settings, and the
 * per-request headers (auth tokens may rotate: exec plugins and in-cluster token files are asked on
 * every request; client-node's authenticators cache their tokens themselves).
 */
import http from 'node:http';
import https from 'node:https';
import { KubeConfigError } from './errors.js';

export interface Connection {
  baseUrl: URL;
  /** Bounded sockets for ordinary requests. */
  agent: http.Agent;
  /** Unbounded, for watches: each holds its socket for as long as it runs, and must never queue. */
  watchAgent: http.Agent;
  headers(): Promise<Record<string, string>>;
  /** Namespace of the kubeconfig context, used for namespaced refs that carry none. */
  defaultNamespace: string;
  /** Where the connection came from, for errors a person reads: `kubeconfig F, context C`. */
  origin?: string;
}

export interface UrlOptions {
  url: string;
  token?: string;
  /** PEM or base64 of PEM, like kubeconfig's certificate-authority-data. */
  caData?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface TlsSettings {
  ca?: Buffer | string | (Buffer | string)[];
  cert?: Buffer | string | (Buffer | string)[];
  key?: Buffer | string | (Buffer | string)[];
  rejectUnauthorized?: boolean;
  servername?: string;
}

export function parseServerUrl(url: string, source: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KubeConfigError(`${source}: server "${url}" is not a URL (expected http(s)://host:port)`, { source, server: url });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new KubeConfigError(`${source}: server "${url}" must use http or https`, { source, server: url });
  }
  return parsed;
}

/**
 * Keep-alive agents: the engine and the controllers make many small requests to one server. Sockets
 * are bounded: 2000 parallel GETs against the simulated server ran at 214/s with one socket each and
 * 546/s with 32 (a flood of new connections costs more than queueing). Watches get their own
 * unbounded agent, since a watch holds its socket and would starve the bounded pool.
 */
export const REQUEST_SOCKETS = 64;

export function makeAgent(baseUrl: URL, tls: TlsSettings, maxSockets: number = REQUEST_SOCKETS): http.Agent {
  const common = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets, maxFreeSockets: 32 };
  if (baseUrl.protocol === 'http:') return new http.Agent(common);
  const options: https.AgentOptions = { ...common };
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  if (tls.rejectUnauthorized !== undefined) options.rejectUnauthorized = tls.rejectUnauthorized;
  if (tls.servername !== undefined) options.servername = tls.servername;
  return new https.Agent(options);
}

/**
 * The same server, credentials and TLS settings with sockets of its own (a few, kept alive): for the
 * leader and member Leases, whose renewals must never queue behind the agent's work in the shared
 * pool. An agent of another kind (client-node's proxy agent for a kubeconfig proxy-url) cannot be
 * copied: then the unbounded watch agent, which never queues, carries them.
 */
export function withOwnSockets(conn: Connection): Connection {
  const shared = conn.agent as http.Agent & { options?: http.AgentOptions };
  const Kind = shared.constructor;
  if (Kind !== http.Agent && Kind !== https.Agent) return { ...conn, agent: conn.watchAgent };
  const options = { ...(shared.options ?? {}), keepAlive: true, maxSockets: 4, maxFreeSockets: 4 };
  return { ...conn, agent: Kind === https.Agent ? new https.Agent(options) : new http.Agent(options) };
}

function decodeCa(caData: string): Buffer {
  // kubeconfig carries base64 of the PEM; accept a PEM as is too.
  return caData.includes('-----BEGIN') ? Buffer.from(caData) : Buffer.from(caData, 'base64');
}

export function connectionFromUrl(options: UrlOptions): Connection {
  const baseUrl = parseServerUrl(options.url, 'client options');
  const tls: TlsSettings = {};
  if (options.caData !== undefined) tls.ca = decodeCa(options.caData);
  if (options.insecureSkipTlsVerify === true) tls.rejectUnauthorized = false;
  const fixed: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  return { baseUrl, agent: makeAgent(baseUrl, tls), watchAgent: makeAgent(baseUrl, tls, Infinity), headers: async () => fixed, defaultNamespace: 'default' };
}
