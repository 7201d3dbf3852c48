/**
 * The simulated cluster's public entry: a store, the HTTP API server over it, a kubeconfig that
 * kubectl and client-node accept, and the simulated controllers talking to it as real ones would.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ControllerManager, type SimulationTiming, DEFAULT_TIMING, startControllers } from './controllers/index.js';
import type { KubeClient } from '../kube/client.js';
import type { FaultAdmin, RequestInterceptor } from './faults/types.js';
import { type KubeconfigDocument, kubeconfigDocument } from './server/kubeconfig.js';
import { type ApiServer, startApiServer } from './server/server.js';
import { generateSelfSigned } from './server/tls.js';
import { Store } from './store/store.js';

export interface ClusterOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Persist objects here across restarts; absent keeps everything in memory. */
  dataDir?: string;
  /**
   * Bearer token clients must send; '' disables authentication. Absent: a random one with `tls`, none
   * without, because kubectl and client-go never send tokens over plain http (kubernetes/kubectl#744).
   */
  token?: string;
  /** Serve HTTPS with a self-signed certificate (needs the openssl command). */
  tls?: boolean;
  /** Where to write the kubeconfig; default `<dataDir or a temp dir>/kubeconfig`. */
  kubeconfigOut?: string;
  /** Start the simulated controllers (default true). */
  controllers?: boolean;
  /**
   * How the controllers reach the API server: `in-process` (default) calls it directly, through the same
   * checks, faults and store as an HTTP request but without sockets or JSON text; `http` connects as any
   * client would (over TLS with `tls`), as controllers against a remote server do.
   */
  controllersClient?: 'in-process' | 'http';
  timing?: Partial<SimulationTiming>;
  /** Simulated nodes (default 3). */
  nodes?: number;
  interceptor?: RequestInterceptor;
  faultAdmin?: FaultAdmin;
  /**
   * Authorize every request with RBAC (Roles, ClusterRoles and their bindings in the cluster). Implies
   * `tls` (kubectl sends tokens only over https); the administrator keeps `cluster-admin`.
   */
  rbac?: boolean;
  /** Users besides the administrator, each with a token and a kubeconfig context `<name>-<user>`. */
  users?: UserSpec[];
  /** Name of the cluster, user and context in the kubeconfig (default `baton-sim`). */
  name?: string;
  /** Store tuning, mainly for tests and benchmarks. */
  watchWindow?: number;
  bookmarkIntervalMs?: number;
}

export interface UserSpec {
  name: string;
  /** Groups besides `system:authenticated`. */
  groups?: string[];
  /** Default: a random token. */
  token?: string;
}

export interface ClusterUser {
  name: string;
  token: string;
  groups: string[];
  /** The kubeconfig context that acts as this user. */
  context: string;
}

export interface Cluster {
  /** The cluster's (and its administrator context's) name in the kubeconfig. */
  name: string;
  url: string;
  kubeconfigPath: string;
  /** The kubeconfig's text. */
  kubeconfig: string;
  /** The administrator's bearer token ('' when authentication is off). */
  token: string;
  /** The users besides the administrator (with `rbac`). */
  users: ClusterUser[];
  /** This cluster's entries, for a kubeconfig that holds several clusters. */
  kubeconfigEntries: KubeconfigDocument;
  /** The store, for in-process inspection (tests, benchmarks). */
  store: Store;
  /**
   * A new client of this cluster's API server for code in the same process, as the administrator: what
   * the controllers use (see `controllersClient`). Stopping the cluster breaks its watches.
   */
  inProcessClient(): KubeClient;
  /** Stops controllers, closes connections (ending watches), flushes the store. Idempotent. */
  stop(): Promise<void>;
}

const randomToken = (): string => randomBytes(24).toString('base64url');

function usersOf(options: ClusterOptions, name: string): ClusterUser[] {
  return (options.users ?? []).map((u) => ({ name: u.name, token: u.token ?? randomToken(), groups: u.groups ?? [], context: `${name}-${u.name}` }));
}

/** The controllers, over the server's in-process client unless `controllersClient: 'http'`. */
function startSimulation(options: ClusterOptions, server: ApiServer, token: string, caData: string | undefined): ControllerManager {
  return startControllers({
    server: { url: server.url, ...(token !== '' ? { token } : {}), ...(caData !== undefined ? { caData } : {}) },
    ...(options.controllersClient === 'http' ? {} : { client: server.inProcessClient() }),
    timing: { ...DEFAULT_TIMING, ...options.timing },
    nodes: options.nodes ?? 3,
  });
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const name = options.name ?? 'baton-sim';
  const useTls = options.tls === true || options.rbac === true;
  const token = options.token ?? (useTls ? randomToken() : '');
  const users = usersOf(options, name);
  const host = options.host ?? '127.0.0.1';
  const tls = useTls ? generateSelfSigned(host) : undefined;
  const store = new Store({
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.watchWindow !== undefined ? { watchWindow: options.watchWindow } : {}),
    ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
    ...(tls ? { rootCaPem: tls.cert } : {}),
  });
  const server = await startApiServer({
    store, host, port: options.port ?? 0,
    ...(token !== '' ? { token } : {}),
    ...(users.length > 0 ? { users: users.map((u) => ({ name: u.name, token: u.token, groups: u.groups })) } : {}),
    ...(options.rbac ? { rbac: true } : {}),
    ...(tls ? { tls } : {}),
    ...(options.interceptor ? { interceptor: options.interceptor } : {}),
    ...(options.faultAdmin ? { faultAdmin: options.faultAdmin } : {}),
  }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const tempDir = options.kubeconfigOut === undefined && options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'baton-cluster-')) : undefined;
  const kubeconfigPath = options.kubeconfigOut ?? join(options.dataDir ?? tempDir ?? '.', 'kubeconfig');
  const kubeconfigEntries: KubeconfigDocument = {
    clusters: [{ name, url: server.url, ...(tls ? { caCert: tls.cert } : {}) }],
    users: [{ name, ...(token !== '' ? { token } : {}) }, ...users.map((u) => ({ name: u.context, token: u.token }))],
    contexts: [{ name, cluster: name, user: name }, ...users.map((u) => ({ name: u.context, cluster: name, user: u.context }))],
    current: name,
  };
  const kubeconfig = kubeconfigDocument(kubeconfigEntries);
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
  const controllers = options.controllers === false ? undefined : startSimulation(options, server, token, tls?.cert);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await controllers?.stop();
      await server.close();
      await store.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    })();
    return stopping;
  };
  return { name, url: server.url, kubeconfigPath, kubeconfig, token, users, kubeconfigEntries, store, inProcessClient: () => server.inProcessClient(), stop };
}

export interface ClusterSet {
  clusters: Cluster[];
  /** One kubeconfig with a context per cluster (and per user of each), the first one current. */
  kubeconfigPath: string;
  stop(): Promise<void>;
}

/**
 * Several independent simulated clusters (each its own store, API server, controllers, port and, with
 * `dataDir`, its own `<dataDir>/<name>`), named `<name>-1` ... `<name>-N`, with one kubeconfig. One
 * cluster is exactly `startCluster`'s (its name and data dir unchanged).
 */
export async function startClusters(count: number, options: ClusterOptions = {}): Promise<ClusterSet> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`cluster count must be a positive integer, got ${count}`);
  const base = options.name ?? 'baton-sim';
  const dir = mkdtempSync(join(tmpdir(), 'baton-clusters-'));
  const clusters: Cluster[] = [];
  try {
    for (let i = 1; i <= count; i++) {
      // A single cluster keeps the plain name and the data dir itself, as `startCluster` would.
      const name = count === 1 ? base : `${base}-${i}`;
      clusters.push(await startCluster({
        ...options,
        name,
        port: options.port !== undefined && options.port !== 0 ? options.port + i - 1 : 0,
        kubeconfigOut: join(dir, `kubeconfig-${name}`),
        ...(options.dataDir !== undefined ? { dataDir: count === 1 ? options.dataDir : join(options.dataDir, name) } : {}),
      }));
    }
  } catch (err) {
    await Promise.all(clusters.map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const kubeconfigPath = options.kubeconfigOut ?? join(options.dataDir ?? dir, 'kubeconfig');
  const merged: KubeconfigDocument = {
    clusters: clusters.flatMap((c) => c.kubeconfigEntries.clusters),
    users: clusters.flatMap((c) => c.kubeconfigEntries.users),
    contexts: clusters.flatMap((c) => c.kubeconfigEntries.contexts),
    current: clusters[0]?.name ?? base,
  };
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfigDocument(merged), { mode: 0o600 });
  return {
    clusters,
    kubeconfigPath,
    stop: async () => {
      await Promise.all(clusters.map((c) => c.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
