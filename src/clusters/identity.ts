/**
 * Which cluster each baton.yaml name has reached (docs/clusters.md, "A cluster's identity"). An
 * instance's status records the server its objects are on, but a status can be lost or never written
 * (the agent applied, then died before its status commit): then nothing in Git says where the
 * instance's objects and checkpoint are, and a name re-pointed at another cluster would deploy the
 * instance again there, orphaning the first copy. So the agent records, per cluster name, the
 * identity of the cluster the name reached the first time it acted there (before anything was read or
 * written for an instance), in a ConfigMap of its own cluster, which outlives Git status, data dirs and
 * agent restarts and is shared by every shard member. A name that later reaches a cluster of another
 * identity is refused for every instance on it until the name reaches that cluster again or a person
 * removes the record's entry.
 *
 * A cluster's identity is the uid of its kube-system namespace: a Kubernetes cluster creates it once
 * and never deletes it, it is the same through every URL, load balancer or credentials, and a rebuilt
 * cluster at the same URL has another one (the convention of `kubectl`-adjacent tools such as Argo CD
 * and cluster registries for a cluster id).
 */
import { createHash } from 'node:crypto';
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import type { KubeObject } from '../kube/object.js';

/** What identifies the cluster a name reaches. */
export interface ClusterIdentity {
  /** The uid of its kube-system namespace. */
  uid: string;
  /** The API server URL the name reached it by (informative: the uid decides). */
  server: string;
}

/** A record's entry: the identity, and when it was first seen. */
export interface RecordedIdentity extends ClusterIdentity {
  since: string;
}

/** The outcome of confirming a name's identity: recorded now, the same as recorded, or another. */
export type IdentityCheck =
  | { kind: 'recorded' }
  | { kind: 'same'; recorded: RecordedIdentity }
  | { kind: 'changed'; recorded: RecordedIdentity };

/** The record ConfigMap of a repository and branch: `baton-clusters-` and the hash the leader Lease's name uses too. */
export function identityRecordName(repo: string, branch: string): string {
  return `baton-clusters-${createHash('sha256').update(`${repo}#${branch}`).digest('hex').slice(0, 12)}`;
}

/** The record's entry cannot be read (edited by hand into something else): refused, never overwritten. */
export class IdentityRecordError extends Error {}

const isConflict = (err: unknown): boolean => err instanceof KubeApiError && (err.status === 409 || err.reason === 'Conflict' || err.reason === 'AlreadyExists');

export class ClusterIdentityRecord {
  /**
   * `client`: the agent's own cluster (fenced like every other write of the agent); the ConfigMap is
   * `namespace/name` there (the leader Lease's namespace).
   */
  constructor(private readonly client: KubeClient, readonly namespace: string, readonly name: string, private readonly now: () => Date = () => new Date()) {}

  /** `kubectl` words a person runs to forget a name's entry (after moving its instances off the old cluster). */
  forgetCommand(cluster: string): string {
    return `kubectl -n ${this.namespace} patch configmap ${this.name} --type json -p '[{"op":"remove","path":"/data/${cluster}"}]'`;
  }

  /** Records `seen` for `cluster` when nothing is recorded for it; otherwise compares by uid. */
  async confirm(cluster: string, seen: ClusterIdentity): Promise<IdentityCheck> {
    // Another agent (a shard member) may record the same name at the same time: re-read on a conflict.
    for (let attempt = 0; ; attempt++) {
      const cm = await this.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: this.namespace, name: this.name });
      const data = dataOf(cm);
      const text = data[cluster];
      if (text !== undefined) {
        const recorded = parseEntry(text, `ConfigMap ${this.namespace}/${this.name} key ${cluster}`);
        return recorded.uid === seen.uid ? { kind: 'same', recorded } : { kind: 'changed', recorded };
      }
      const entry = JSON.stringify({ uid: seen.uid, server: seen.server, since: this.now().toISOString() });
      try {
        if (cm === undefined) {
          await this.ensureNamespace();
          await this.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: this.name, namespace: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'baton' } }, data: { [cluster]: entry } });
        } else {
          // metadata.resourceVersion is kept: an update racing another one is a conflict, not a lost entry.
          await this.client.update({ ...cm, data: { ...data, [cluster]: entry } });
        }
        return { kind: 'recorded' };
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }

  private async ensureNamespace(): Promise<void> {
    if (await this.client.get({ apiVersion: 'v1', kind: 'Namespace', name: this.namespace }) !== undefined) return;
    try {
      await this.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.namespace } });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

function dataOf(cm: KubeObject | undefined): Record<string, string> {
  const data = (cm as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return {};
  return Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function parseEntry(text: string, where: string): RecordedIdentity {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const v = value as Partial<Record<keyof RecordedIdentity, unknown>> | undefined;
  if (typeof v !== 'object' || v === null || typeof v.uid !== 'string' || v.uid === '' || typeof v.server !== 'string' || typeof v.since !== 'string') {
    throw new IdentityRecordError(`${where}: expected JSON {"uid": "<kube-system namespace uid>", "server": "<URL>", "since": "<time>"}, got ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { uid: v.uid, server: v.server, since: v.since };
}
