/**
 * The simulated cluster's public entry: a store, the HTTP API server over it, a kubeconfig that
 * kubectl and client-node accept, and the simulated controllers talking to it as real ones would.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type SimulationTiming, DEFAULT_TIMING, startControllers } from './controllers/index.js';
import type { FaultAdmin, RequestInterceptor } from './faults/types.js';
import { kubeconfigYaml } from './server/kubeconfig.js';
import { startApiServer } from './server/server.js';
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
  timing?: Partial<SimulationTiming>;
  /** Simulated nodes (default 3). */
  nodes?: number;
  interceptor?: RequestInterceptor;
  faultAdmin?: FaultAdmin;
  /** Store tuning, mainly for tests and benchmarks. */
  watchWindow?: number;
  bookmarkIntervalMs?: number;
}

export interface Cluster {
  url: string;
  kubeconfigPath: string;
  /** The kubeconfig's text. */
  kubeconfig: string;
  /** The bearer token ('' when authentication is off). */
  token: string;
  /** The store, for in-process inspection (tests, benchmarks). */
  store: Store;
  /** Stops controllers, closes connections (ending watches), flushes the store. Idempotent. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const token = options.token ?? (options.tls ? randomBytes(24).toString('base64url') : '');
  const host = options.host ?? '127.0.0.1';
  const tls = options.tls ? generateSelfSigned(host) : undefined;
  const store = new Store({
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.watchWindow !== undefined ? { watchWindow: options.watchWindow } : {}),
    ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
    ...(tls ? { rootCaPem: tls.cert } : {}),
  });
  const server = await startApiServer({
    store, host, port: options.port ?? 0,
    ...(token !== '' ? { token } : {}),
    ...(tls ? { tls } : {}),
    ...(options.interceptor ? { interceptor: options.interceptor } : {}),
    ...(options.faultAdmin ? { faultAdmin: options.faultAdmin } : {}),
  }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const tempDir = options.kubeconfigOut === undefined && options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'baton-cluster-')) : undefined;
  const kubeconfigPath = options.kubeconfigOut ?? join(options.dataDir ?? tempDir ?? '.', 'kubeconfig');
  const kubeconfig = kubeconfigYaml({ url: server.url, ...(token !== '' ? { token } : {}), ...(tls ? { caCert: tls.cert } : {}) });
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
  const controllers = options.controllers === false ? undefined : startControllers({
    server: { url: server.url, ...(token !== '' ? { token } : {}), ...(tls ? { caData: tls.cert } : {}) },
    timing: { ...DEFAULT_TIMING, ...options.timing },
    nodes: options.nodes ?? 3,
  });
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
  return { url: server.url, kubeconfigPath, kubeconfig, token, store, stop };
}
