/**
 * The controllers' writes, each remembered in (or removed from) the informer cache at once so the
 * next reconcile sees its own work before the watch event arrives (client-go uses "expectations").
 */
import type { KubeClient } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import { refOf, type KubeObject } from '../../../kube/object.js';
import type { Informer } from './informer.js';
import type { KindName } from './kinds.js';
import { KINDS } from './kinds.js';
import { deepEqual } from './meta.js';

export class Api {
  constructor(
    private readonly client: KubeClient,
    private readonly informerOf: (kind: KindName) => Informer | undefined,
    /** Recorded in managedFields, as the real component's writes are (`kube-controller-manager`, `kubelet`). */
    private readonly manager = 'kube-controller-manager',
  ) {}

  private cache(obj: KubeObject): Informer | undefined {
    const name = Object.keys(KINDS).find((k) => KINDS[k as KindName].kind === obj.kind) as KindName | undefined;
    return name === undefined ? undefined : this.informerOf(name);
  }

  private remember(obj: KubeObject, fallback: KubeObject): KubeObject {
    const full = { ...obj, apiVersion: obj.apiVersion || fallback.apiVersion, kind: obj.kind || fallback.kind };
    this.cache(full)?.remember(full);
    return full;
  }

  /** Creates; an object that already exists is not an error (another reconcile got there first). */
  async create(obj: KubeObject): Promise<KubeObject | undefined> {
    try {
      return this.remember(await this.client.create(obj, { fieldManager: this.manager }), obj);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 409 && err.reason === 'AlreadyExists') return undefined;
      throw err;
    }
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    return this.remember(await this.client.update(obj, { fieldManager: this.manager }), obj);
  }

  async patch(obj: KubeObject, patch: unknown, manager = this.manager): Promise<KubeObject> {
    return this.remember(await this.client.patch(refOf(obj), patch, 'merge', { fieldManager: manager }), obj);
  }

  /**
   * Writes `next` as the status with a merge patch: keys the old status had and `next` lacks are
   * removed, lists are replaced whole. Nothing is sent when nothing changed.
   */
  async patchStatus(obj: KubeObject, next: Record<string, unknown>): Promise<KubeObject> {
    const old = (obj.status ?? {}) as Record<string, unknown>;
    const body: Record<string, unknown> = { ...next };
    let changed = false;
    for (const key of Object.keys(old)) {
      if (key in next) continue;
      body[key] = null;
      changed = true;
    }
    for (const [key, value] of Object.entries(next)) if (!deepEqual(old[key], value)) changed = true;
    if (!changed) return obj;
    return this.remember(await this.client.patch(refOf(obj), { status: body }, 'merge', { subresource: 'status', fieldManager: this.manager }), obj);
  }

  /** The same API, writing as another component (the kubelet, the scheduler). */
  as(manager: string): Api {
    return new Api(this.client, this.informerOf, manager);
  }

  /** Deletes in the background (dependents go to the garbage collector); gone already is fine. */
  async delete(obj: KubeObject, gracePeriodSeconds?: number): Promise<void> {
    const options = gracePeriodSeconds === undefined ? { propagationPolicy: 'Background' as const } : { propagationPolicy: 'Background' as const, gracePeriodSeconds };
    const preconditions = obj.metadata.uid ? { uid: obj.metadata.uid } : undefined;
    try {
      await this.client.delete(refOf(obj), preconditions ? { ...options, preconditions } : options);
    } catch (err) {
      if (!(err instanceof KubeApiError && (err.status === 404 || err.status === 409))) throw err;
    }
    this.cache(obj)?.forget(obj);
  }
}
