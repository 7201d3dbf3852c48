/**
 * How a person reads an instance's target cluster before anything runs (`baton preview`, `baton apply`):
 * the baton.yaml name, where its kubeconfig comes from, the context and, when a kubeconfig file on this
 * machine says it, the server. Nothing here contacts a cluster: a kubeconfig kept in a Secret is named,
 * not read, and a file that is missing here (it is on the agent's machine) just leaves the server out.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { connectionFromKubeconfig } from '../kube/kubeconfig.js';
import type { ClusterDecl } from '../render/schemas.js';

export interface ClusterTarget {
  /** The cluster's name in baton.yaml; absent: the agent's own cluster (the instance names none). */
  name?: string;
  /** The kubeconfig file baton.yaml names for it. */
  kubeconfig?: string;
  /** `NAMESPACE/NAME key KEY` of the Secret in the agent's own cluster holding its kubeconfig. */
  secret?: string;
  context?: string;
  /** The API server URL, when a kubeconfig on this machine says it. */
  server?: string;
}

export interface LocalKubeconfig {
  /** The kubeconfig that stands for the agent's own here (`--kubeconfig`): a context-only cluster is looked up in it. */
  kubeconfigPath?: string;
  /** The own cluster's context in it (`--context`). */
  context?: string;
  /** Relative paths of baton.yaml `kubeconfig:` resolve against this (default: the working directory). */
  cwd?: string;
}

/** The target of an instance naming `decl` (undefined: the agent's own cluster). */
export async function describeTarget(decl: ClusterDecl | undefined, local: LocalKubeconfig = {}): Promise<ClusterTarget> {
  if (decl === undefined) {
    const server = local.kubeconfigPath !== undefined ? await serverIn(local.kubeconfigPath, local.context) : undefined;
    return { ...(local.context !== undefined ? { context: local.context } : {}), ...(server !== undefined ? { server } : {}) };
  }
  const file = decl.kubeconfig !== undefined ? (isAbsolute(decl.kubeconfig) ? decl.kubeconfig : resolve(local.cwd ?? process.cwd(), decl.kubeconfig)) : decl.secret === undefined ? local.kubeconfigPath : undefined;
  const server = file !== undefined ? await serverIn(file, decl.context) : undefined;
  return {
    name: decl.name,
    ...(decl.kubeconfig !== undefined ? { kubeconfig: decl.kubeconfig } : {}),
    ...(decl.secret !== undefined ? { secret: `${decl.secret.namespace}/${decl.secret.name} key ${decl.secret.key}` } : {}),
    ...(decl.context !== undefined ? { context: decl.context } : {}),
    ...(server !== undefined ? { server } : {}),
  };
}

/** `cluster edge (context edge-eu-1, server https://10.0.0.7:6443)` or `the agent's own cluster`. */
export function targetText(t: ClusterTarget): string {
  const parts = [
    ...(t.kubeconfig !== undefined ? [`kubeconfig ${t.kubeconfig}`] : []),
    ...(t.secret !== undefined ? [`kubeconfig in Secret ${t.secret}`] : []),
    ...(t.context !== undefined ? [`context ${t.context}`] : []),
    ...(t.server !== undefined ? [`server ${t.server}`] : []),
  ];
  const head = t.name === undefined ? "the agent's own cluster" : `cluster ${t.name}`;
  return parts.length > 0 ? `${head} (${parts.join(', ')})` : head;
}

/** The server a kubeconfig file's context names, read from the file only (no request); undefined when it cannot be read. */
async function serverIn(file: string, context: string | undefined): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  try {
    const conn = await connectionFromKubeconfig({ kubeconfigPath: file, ...(context !== undefined ? { context } : {}) });
    conn.agent.destroy();
    conn.watchAgent.destroy();
    return conn.baseUrl.toString().replace(/\/$/, '');
  } catch {
    return undefined;
  }
}
