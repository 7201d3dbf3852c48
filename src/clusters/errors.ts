/**
 * A cluster of baton.yaml `clusters` that cannot be used: not reached, its credentials refused, or its
 * kubeconfig unusable. Each names the cluster, where its kubeconfig came from, the context and the
 * server, and what to try, so a person knows which of several clusters is meant.
 */
import { BatonError } from '../errors.js';

export interface ClusterWhere {
  /** The cluster's name in baton.yaml. */
  cluster: string;
  /** `kubeconfig FILE`, `kubeconfig in Secret NS/NAME key KEY` or `the agent's kubeconfig`. */
  kubeconfig: string;
  context?: string;
  /** The API server URL, once known. */
  server?: string;
}

export type ClusterProblem = 'unreachable' | 'unauthorized' | 'config' | 'server-changed';

export function whereText(w: ClusterWhere): string {
  return [w.kubeconfig, ...(w.context !== undefined ? [`context ${w.context}`] : []), ...(w.server !== undefined ? [`server ${w.server}`] : [])].join(', ');
}

export class ClusterError extends BatonError {
  readonly cluster: string;
  readonly problem: ClusterProblem;

  constructor(code: string, problem: ClusterProblem, where: ClusterWhere, detail: string, cause?: unknown, recorded?: string) {
    super(code, `${headline(problem, where.cluster)} (${whereText(where)}): ${detail}; ${hint(problem, where, recorded)}`, { ...where, problem }, { cause });
    this.cluster = where.cluster;
    this.problem = problem;
  }
}

export class ClusterUnreachableError extends ClusterError {
  constructor(where: ClusterWhere, detail: string, cause?: unknown) {
    super('CLUSTER_UNREACHABLE', 'unreachable', where, detail, cause);
  }
}

export class ClusterUnauthorizedError extends ClusterError {
  constructor(where: ClusterWhere, detail: string, cause?: unknown) {
    super('CLUSTER_UNAUTHORIZED', 'unauthorized', where, detail, cause);
  }
}

export class ClusterConfigError extends ClusterError {
  constructor(where: ClusterWhere, detail: string, cause?: unknown) {
    super('CLUSTER_CONFIG', 'config', where, detail, cause);
  }
}

/**
 * The cluster's declaration in baton.yaml now reaches another API server than the one an instance's
 * objects and checkpoint are on (its status records it). Baton does not move instances between
 * servers: nothing is read or written for the instance until the name reaches its server again.
 */
export class ClusterServerChangedError extends ClusterError {
  readonly recorded: string;

  constructor(where: ClusterWhere & { server: string }, recorded: string, instance: string) {
    super('CLUSTER_SERVER_CHANGED', 'server-changed', where,
      `instance ${instance}'s objects and checkpoint are on server ${recorded} (its status records it), and baton.yaml's declaration of "${where.cluster}" now reaches ${where.server}`,
      undefined, recorded);
    this.recorded = recorded;
  }
}

function headline(problem: ClusterProblem, cluster: string): string {
  switch (problem) {
    case 'unreachable': return `cluster "${cluster}" cannot be reached`;
    case 'unauthorized': return `cluster "${cluster}" refused the agent's credentials`;
    case 'config': return `cluster "${cluster}" cannot be connected to`;
    case 'server-changed': return `cluster "${cluster}" in baton.yaml now reaches another API server`;
  }
}

function hint(problem: ClusterProblem, w: ClusterWhere, recorded?: string): string {
  const kubectl = `kubectl${w.kubeconfig.startsWith('kubeconfig ') && !w.kubeconfig.includes('Secret') ? ` --kubeconfig ${w.kubeconfig.slice('kubeconfig '.length)}` : ''}${w.context !== undefined ? ` --context ${w.context}` : ''} get namespaces`;
  switch (problem) {
    case 'unreachable': return `try: is the cluster running and its server address right? \`${kubectl}\` shows what the agent sees; instances on other clusters go on`;
    case 'unauthorized': return `try: renew the token or client certificate of that kubeconfig user (\`${kubectl}\`); instances on other clusters go on`;
    case 'config': return `try: check baton.yaml clusters (kubeconfig, context, secret) and that the file or Secret exists and holds a kubeconfig; instances on other clusters go on`;
    case 'server-changed': return `Baton does not move instances between API servers: point cluster "${w.cluster}" in baton.yaml back at ${recorded ?? 'its server'} (another kubeconfig, context or credentials for that same server are fine); to move instances to ${w.server ?? 'the new server'}, remove their files while the name still reaches ${recorded ?? 'their server'} (the agent removes them there), then declare the new server (under this name or a new one) and add them again; nothing is read or written for the instance until then; instances on other clusters go on`;
  }
}
