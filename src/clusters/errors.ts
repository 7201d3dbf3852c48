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

export type ClusterProblem = 'unreachable' | 'unauthorized' | 'config' | 'identity-forbidden' | 'server-changed' | 'identity-changed';

export function whereText(w: ClusterWhere): string {
  return [w.kubeconfig, ...(w.context !== undefined ? [`context ${w.context}`] : []), ...(w.server !== undefined ? [`server ${w.server}`] : [])].join(', ');
}

export class ClusterError extends BatonError {
  readonly cluster: string;
  readonly problem: ClusterProblem;

  /** `advice`: what to try, when the problem's general advice does not say it (identity-changed). */
  constructor(code: string, problem: ClusterProblem, where: ClusterWhere, detail: string, cause?: unknown, recorded?: string, advice?: string) {
    super(code, `${headline(problem, where.cluster)} (${whereText(where)}): ${detail}; ${advice ?? hint(problem, where, recorded)}`, { ...where, problem }, { cause });
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
 * The agent's account in a baton.yaml cluster may not `get` namespace kube-system, whose uid is the
 * cluster's identity (identity.ts, read before anything else for an instance on the name). A setup
 * problem of the cluster, so `CLUSTER_CONFIG`, but not one of its kubeconfig: the message names the
 * account (from the API server's denial) and gives the two commands that grant exactly that permission.
 */
export class ClusterIdentityForbiddenError extends ClusterError {
  /** The account the API server denied (`User "..."` of its message), when it said. */
  readonly user: string | undefined;

  constructor(where: ClusterWhere, denial: { status: number; reason: string; message: string }, cause?: unknown) {
    const user = /User "([^"]+)"/.exec(denial.message)?.[1];
    super('CLUSTER_CONFIG', 'identity-forbidden', where,
      `the agent's account there${user !== undefined ? ` (User "${user}")` : ''} may not \`get\` namespace kube-system (${denial.status} ${denial.reason}), whose uid tells one cluster from another: Baton reads it before anything is read or written for an instance on "${where.cluster}" (docs/clusters.md, "A cluster's identity")`,
      cause, undefined,
      `nothing is read or written for instances on "${where.cluster}" until it may; allow it, as an administrator of that cluster: `
      + `\`kubectl create clusterrole baton-cluster-identity --verb=get --resource=namespaces --resource-name=kube-system\` and `
      + `\`kubectl create clusterrolebinding baton-cluster-identity --clusterrole=baton-cluster-identity ${subjectFlag(user)}\`; instances on other clusters go on`);
    this.user = user;
  }
}

/** The `kubectl create clusterrolebinding` flag naming the denied account. */
function subjectFlag(user: string | undefined): string {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user ?? '');
  if (sa) return `--serviceaccount=${sa[1]}:${sa[2]}`;
  return `--user=${user ?? '<the user of that kubeconfig>'}`;
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

/**
 * The cluster's name in baton.yaml now reaches a cluster of another identity (its kube-system namespace
 * uid) than the one the agent recorded for the name when it first acted there (identity.ts). Found
 * without any instance's status, so it protects instances whose status was lost or never written:
 * nothing is read or written for any instance on the name until it reaches the recorded cluster again
 * or a person forgets the entry.
 */
export class ClusterIdentityChangedError extends ClusterError {
  readonly recordedUid: string;
  readonly uid: string;

  constructor(where: ClusterWhere & { server: string }, recorded: { uid: string; server: string; since: string }, uid: string, record: { ref: string; forget: string }) {
    super('CLUSTER_IDENTITY_CHANGED', 'identity-changed', where,
      `its kube-system namespace uid is ${uid}, while the agent's record (${record.ref}) says "${where.cluster}" reached the cluster with uid ${recorded.uid} (at server ${recorded.server}) since ${recorded.since}, and instances' objects and checkpoints may be there even where no status says so`,
      undefined, recorded.server,
      `Baton does not move instances between clusters: point cluster "${where.cluster}" back at the cluster with uid ${recorded.uid} (any URL, kubeconfig, context or credentials for it are fine); `
      + `if no instance's objects remain there (removed, or moved by you), forget the entry so that "${where.cluster}" is recorded anew at the next poll: \`${record.forget}\`; `
      + `nothing is read or written for instances on "${where.cluster}" until then; instances on other clusters go on`);
    this.recordedUid = recorded.uid;
    this.uid = uid;
  }
}

function headline(problem: ClusterProblem, cluster: string): string {
  switch (problem) {
    case 'unreachable': return `cluster "${cluster}" cannot be reached`;
    case 'unauthorized': return `cluster "${cluster}" refused the agent's credentials`;
    case 'config': return `cluster "${cluster}" cannot be connected to`;
    case 'identity-forbidden': return `cluster "${cluster}" does not let the agent read its identity`;
    case 'server-changed': return `cluster "${cluster}" in baton.yaml now reaches another API server`;
    case 'identity-changed': return `cluster "${cluster}" in baton.yaml now reaches another cluster`;
  }
}

function hint(problem: ClusterProblem, w: ClusterWhere, recorded?: string): string {
  const kubectl = `kubectl${w.kubeconfig.startsWith('kubeconfig ') && !w.kubeconfig.includes('Secret') ? ` --kubeconfig ${w.kubeconfig.slice('kubeconfig '.length)}` : ''}${w.context !== undefined ? ` --context ${w.context}` : ''} get namespaces`;
  switch (problem) {
    case 'unreachable': return `try: is the cluster running and its server address right? \`${kubectl}\` shows what the agent sees; instances on other clusters go on`;
    case 'unauthorized': return `try: renew the token or client certificate of that kubeconfig user (\`${kubectl}\`); instances on other clusters go on`;
    case 'config': return `try: check baton.yaml clusters (kubeconfig, context, secret) and that the file or Secret exists and holds a kubeconfig; instances on other clusters go on`;
    case 'identity-forbidden': return `allow the agent's account \`get\` on namespace kube-system there; instances on other clusters go on`;
    case 'identity-changed': return `point cluster "${w.cluster}" in baton.yaml back at the cluster it reached before; instances on other clusters go on`;
    case 'server-changed': return `Baton does not move instances between API servers: point cluster "${w.cluster}" in baton.yaml back at ${recorded ?? 'its server'} (another kubeconfig, context or credentials for that same server are fine); to move instances to ${w.server ?? 'the new server'}, remove their files while the name still reaches ${recorded ?? 'their server'} (the agent removes them there), then declare the new server under a new name (or under this one once its entry in the agent's cluster record is forgotten, docs/clusters.md) and add them again; nothing is read or written for the instance until then; instances on other clusters go on`;
  }
}
