/**
 * What a simulated controller is: a primary kind whose keys it reconciles, the other kinds whose
 * changes concern it, and a reconcile function that acts only through the API (via `Api`).
 */
import type { KubeClient } from '../../../kube/client.js';
import type { KubeObject } from '../../../kube/object.js';
import type { SimulationTiming } from '../types.js';
import type { Api } from './api.js';
import type { Clock } from './clock.js';
import type { EventRecorder } from './events.js';
import type { Informer } from './informer.js';
import type { KindName } from './kinds.js';

export interface ControllerContext {
  client: KubeClient;
  api: Api;
  clock: Clock;
  timing: SimulationTiming;
  nodes: number;
  events: EventRecorder;
  informer(kind: KindName): Informer;
}

export interface ReconcileResult {
  /** Look again after this long even if nothing changes (timers: delays, deadlines, schedules). */
  requeueAfterMs?: number;
}

export interface Watch {
  kind: KindName;
  /** Keys of the primary kind that a change of this object concerns. */
  keys(obj: KubeObject, ctx: ControllerContext): string[];
}

export interface Controller {
  name: string;
  kind: KindName;
  watches?: Watch[];
  /** The component its writes are recorded under (default `kube-controller-manager`). */
  fieldManager?: string;
  /** Workers in parallel (distinct keys only). Default 1. */
  workers?: number;
  reconcile(key: string, ctx: ControllerContext): Promise<ReconcileResult | undefined>;
  /** Called when a primary object is deleted (to drop in-memory state). */
  forget?(obj: KubeObject): void;
}
