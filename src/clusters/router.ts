/**
 * Routes each instance to its target cluster (docs/clusters.md): the client its objects are applied
 * with, the client its drift sweeps and dependencies read with, its checkpoint store and its Events
 * all belong to the cluster its instance file names (`cluster:`), or to the agent's own cluster.
 * The declarations follow baton.yaml at each commit the agent looks at: a cluster added, changed or
 * removed there is connected, reconnected or closed without a restart.
 */
import type { KubeClient } from '../kube/client.js';
import type { Checkpoint, CheckpointStore, InstanceKey, StoredCheckpoint } from '../plans/checkpoint.js';
import { ConfigMapCheckpointStore } from '../plans/checkpoint-configmap.js';
import type { EngineEvent } from '../plans/events.js';
import { KubeEventRecorder, type KubeEventRecorderOptions, type PlanEventSink } from '../plans/kube-events.js';
import type { ClusterDecl } from '../render/schemas.js';
import { ClusterClient, type ConnectContext } from './connect.js';
import { ClusterConfigError, ClusterIdentityChangedError, ClusterIdentityForbiddenError, ClusterServerChangedError } from './errors.js';
import { IdentityRecordError, type ClusterIdentityRecord } from './identity.js';
import { KubeApiError } from '../kube/errors.js';
import { errorMessage } from '../errors.js';
import { guardedClient, guardedStore } from './server-guard.js';

const keyOf = (k: InstanceKey): string => `${k.namespace}/${k.name}`;

export interface RouterOptions extends ConnectContext {
  /** The agent's own cluster as instances without `cluster:` use it (fenced, with tenants' impersonation). */
  ownClientFor: (key: InstanceKey) => KubeClient;
  /** The own cluster's checkpoint store and Events recorder (unchanged for instances without `cluster:`). */
  ownCheckpoints: CheckpointStore;
  ownEvents?: PlanEventSink;
  /** Wraps every write to another cluster too (the leader's or shard member's fence). */
  fence?: (client: KubeClient) => KubeClient;
  /** The user an instance's tenant acts as (`system:serviceaccount:NS:NAME`), impersonated on its cluster too. */
  userOf?: (key: InstanceKey) => string | undefined;
  /** Events are recorded in each cluster (undefined: no Events anywhere). */
  events?: KubeEventRecorderOptions;
  /**
   * The agent's record of which cluster each name reached (identity.ts): before anything is read or
   * written for an instance on a name, the cluster the name reaches now must be the recorded one.
   * Undefined (commands run by hand): only the server an instance's status records is checked.
   */
  identities?: ClusterIdentityRecord;
}

interface Target {
  decl: ClusterDecl;
  client: ClusterClient;
  acting: KubeClient;
  checkpoints: CheckpointStore;
  events?: KubeEventRecorder;
  /** Impersonating clients by user (fenced). */
  users: Map<string, { base: ClusterClient; acting: KubeClient }>;
  /** The identity check of this declaration: settled once it passed (again after a failure, at the next use). */
  identity?: Promise<void> | undefined;
  /** The last identity check found another cluster than the recorded one (no Events are sent there). */
  elsewhere?: boolean;
}

export class ClusterRouter {
  private readonly targets = new Map<string, Target>();
  /** Each instance's target cluster (absent: the agent's own). */
  private readonly assigned = new Map<string, string>();
  /** The API server each instance's objects are on, as its status records it (absent: not recorded yet). */
  private readonly recorded = new Map<string, string>();
  /** Clients and stores that check a recorded server first, one per cluster, server and role (so sweeps still group by client). */
  private readonly guarded = new Map<string, { client?: KubeClient; store?: CheckpointStore }>();
  readonly checkpoints: CheckpointStore;
  readonly events: PlanEventSink | undefined;

  constructor(private readonly options: RouterOptions, decls: readonly ClusterDecl[] = []) {
    this.declare(decls);
    this.checkpoints = {
      load: (instance: InstanceKey): Promise<StoredCheckpoint | undefined> => this.storeOf(instance).load(instance),
      save: (checkpoint: Checkpoint, version: string | undefined): Promise<string> => this.storeOf(checkpoint.instance).save(checkpoint, version),
      remove: (instance: InstanceKey): Promise<void> => this.storeOf(instance).remove(instance),
    };
    this.events = options.ownEvents && {
      listener: (sensitive?: () => readonly string[]) => (event: EngineEvent) => this.eventsOf(event.instance)?.record(event, sensitive?.() ?? []),
      record: (event, sensitive) => this.eventsOf(event.instance)?.record(event, sensitive),
      recordInstance: (instance, type, reason, message, sensitive) => this.eventsOf(instance)?.recordInstance(instance, type, reason, message, sensitive),
      flush: async (timeoutMs) => { await Promise.all([options.ownEvents?.flush(timeoutMs), ...[...this.targets.values()].map((t) => t.events?.flush(timeoutMs))]); },
    };
  }

  /** The clusters baton.yaml declares now: new ones are connected on first use, changed ones again, removed ones closed. */
  declare(decls: readonly ClusterDecl[]): void {
    const names = new Set(decls.map((d) => d.name));
    for (const [name, t] of this.targets) if (!names.has(name)) this.closeTarget(name, t);
    for (const decl of decls) {
      const known = this.targets.get(decl.name);
      if (known !== undefined && JSON.stringify(known.decl) === JSON.stringify(decl)) continue;
      if (known !== undefined) this.closeTarget(decl.name, known);
      const client = new ClusterClient(decl, this.options);
      const acting = this.options.fence?.(client) ?? client;
      this.targets.set(decl.name, {
        decl, client, acting, checkpoints: new ConfigMapCheckpointStore(acting), users: new Map(),
        ...(this.options.events ? { events: new KubeEventRecorder(acting, this.options.events) } : {}),
      });
    }
  }

  /** Declared cluster names, in baton.yaml's order. */
  get names(): string[] {
    return [...this.targets.keys()];
  }

  /**
   * Records the instance's target (undefined: the agent's own cluster) and, when its status records
   * it, the API server its objects are on: every read and write for it then checks that the cluster's
   * declaration still reaches that server (ClusterServerChangedError otherwise, docs/clusters.md).
   */
  assign(key: InstanceKey, cluster: string | undefined, server?: string): void {
    if (cluster === undefined) this.assigned.delete(keyOf(key));
    else this.assigned.set(keyOf(key), cluster);
    if (cluster === undefined || server === undefined) this.recorded.delete(keyOf(key));
    else this.recorded.set(keyOf(key), server);
  }

  /** The server the instance's status should record: the one recorded, else its cluster's once connected. */
  serverOf(key: InstanceKey): string | undefined {
    return this.recorded.get(keyOf(key)) ?? this.targetOf(key)?.client.serverUrl;
  }

  /** Whether the instance's target is known (assigned, or the own cluster by an instance file that names none). */
  knows(key: InstanceKey): boolean {
    return this.assigned.has(keyOf(key));
  }

  /** The instance's target cluster by name; undefined for the agent's own. */
  clusterOf(key: InstanceKey): string | undefined {
    return this.assigned.get(keyOf(key));
  }

  /** The client the instance's objects are applied with (fenced; a tenant's account impersonated). */
  clientFor(key: InstanceKey): KubeClient {
    const target = this.targetOf(key);
    if (target === undefined) return this.options.ownClientFor(key);
    const user = this.options.userOf?.(key);
    if (user === undefined) return this.guardClient(key, target, 'acting', target.acting);
    let c = target.users.get(user);
    if (c === undefined) {
      const base = new ClusterClient(target.decl, this.options, user);
      c = { base, acting: this.options.fence?.(base) ?? base };
      target.users.set(user, c);
    }
    return this.guardClient(key, target, `user ${user}`, c.acting);
  }

  /** The client drift sweeps and dependency checks read the instance's cluster with (the agent's own account); undefined for the own cluster. */
  readerFor(key: InstanceKey): KubeClient | undefined {
    const target = this.targetOf(key);
    return target === undefined ? undefined : this.guardClient(key, target, 'reader', target.client);
  }

  close(): void {
    for (const [name, t] of this.targets) this.closeTarget(name, t);
  }

  private targetOf(key: InstanceKey): Target | undefined {
    const name = this.assigned.get(keyOf(key));
    if (name === undefined) return undefined;
    const target = this.targets.get(name);
    // Assigned from an instance file whose cluster baton.yaml no longer declares: never fall back to another cluster.
    if (target === undefined) throw new ClusterConfigError({ cluster: name, kubeconfig: 'not declared' }, `${keyOf(key)} targets cluster "${name}", which baton.yaml no longer declares`);
    return target;
  }

  private storeOf(key: InstanceKey): CheckpointStore {
    const target = this.targetOf(key);
    if (target === undefined) return this.options.ownCheckpoints;
    const server = this.recorded.get(keyOf(key));
    if (server === undefined && this.options.identities === undefined) return target.checkpoints;
    const slot = this.slot(target, server, 'checkpoints');
    return (slot.store ??= guardedStore(target.checkpoints, () => this.checkServer(target, server, key)));
  }

  private eventsOf(key: InstanceKey): PlanEventSink | undefined {
    try {
      const target = this.targetOf(key);
      if (target === undefined) return this.options.ownEvents;
      // Events are recorded on the side: none where the declaration is known to reach another server.
      const server = this.recorded.get(keyOf(key));
      const now = target.client.serverUrl;
      return target.elsewhere === true || (server !== undefined && now !== undefined && now !== server) ? undefined : target.events;
    } catch {
      return undefined;
    }
  }

  private guardClient(key: InstanceKey, target: Target, role: string, client: KubeClient): KubeClient {
    const server = this.recorded.get(keyOf(key));
    if (server === undefined && this.options.identities === undefined) return client;
    const slot = this.slot(target, server, role);
    return (slot.client ??= guardedClient(client, () => this.checkServer(target, server, key)));
  }

  private slot(target: Target, server: string | undefined, role: string): { client?: KubeClient; store?: CheckpointStore } {
    const id = `${target.decl.name}\0${server ?? ''}\0${role}`;
    let slot = this.guarded.get(id);
    if (slot === undefined) this.guarded.set(id, (slot = {}));
    return slot;
  }

  /**
   * Connects (the server is in the kubeconfig) and refuses to go on when it is not the server the
   * instance's status records, or (with a record of identities) not the cluster the name reached before.
   */
  private async checkServer(target: Target, server: string | undefined, key: InstanceKey): Promise<void> {
    await target.client.connected();
    const now = target.client.serverUrl;
    if (server !== undefined && now !== undefined && now !== server) throw new ClusterServerChangedError({ ...target.client.where(), server: now }, server, keyOf(key));
    await this.checkIdentity(target);
  }

  /** Once per declaration when it passes; again at every use while it fails (a forgotten entry is seen at once). */
  private checkIdentity(target: Target): Promise<void> {
    const identities = this.options.identities;
    if (identities === undefined) return Promise.resolve();
    if (target.identity === undefined) {
      const attempt = this.confirmIdentity(target, identities);
      target.identity = attempt;
      attempt.then(() => { target.elsewhere = false; }, (err: unknown) => {
        if (target.identity === attempt) target.identity = undefined;
        target.elsewhere = err instanceof ClusterIdentityChangedError;
      });
    }
    return target.identity;
  }

  private async confirmIdentity(target: Target, identities: ClusterIdentityRecord): Promise<void> {
    let uid: string | undefined;
    try {
      uid = (await target.client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' }))?.metadata.uid;
    } catch (err) {
      if (!(err instanceof KubeApiError)) throw err;
      if (err.status === 403) throw new ClusterIdentityForbiddenError(target.client.where(), { status: err.status, reason: err.reason, message: err.message }, err);
      throw new ClusterConfigError(target.client.where(), `reading its namespace kube-system, whose uid tells one cluster from another, failed (${err.status} ${err.reason}: ${err.message}); nothing is read or written for instances on "${target.decl.name}" until it succeeds`, err);
    }
    if (uid === undefined || uid === '') throw new ClusterConfigError(target.client.where(), 'it has no namespace kube-system with a uid, by which Baton tells one cluster from another');
    const server = target.client.serverUrl ?? '';
    const ref = `ConfigMap ${identities.namespace}/${identities.name} in the agent's own cluster`;
    let check;
    try {
      check = await identities.confirm(target.decl.name, { uid, server });
    } catch (err) {
      // The record is the agent's own cluster's: its failure is not this cluster's, but it decides nothing either.
      throw new ClusterConfigError(target.client.where(), `the agent's record of cluster identities (${ref}) cannot be ${err instanceof IdentityRecordError ? 'read' : 'read or written'}: ${errorMessage(err)}`, err);
    }
    if (check.kind === 'changed') throw new ClusterIdentityChangedError({ ...target.client.where(), server }, check.recorded, uid, { ref, forget: identities.forgetCommand(target.decl.name) });
  }

  private closeTarget(name: string, t: Target): void {
    for (const id of [...this.guarded.keys()]) if (id.startsWith(`${name}\0`)) this.guarded.delete(id);
    void t.events?.flush(1000);
    t.client.close();
    for (const u of t.users.values()) u.base.close();
    this.targets.delete(name);
  }
}
