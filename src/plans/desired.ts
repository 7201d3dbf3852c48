/**
 * The bridge from the renderer's model to plan selection: the desired state of an instance as
 * `selectPlan` reads it, built the same way by `baton apply`, the agent and `baton preview`.
 */
import type { Framework } from '../render/model.js';
import { frameworkDigest } from '../render/digest.js';
import type { DesiredState, PlanRequest } from './selection.js';

export interface DesiredExtras {
  request?: PlanRequest;
  removed?: boolean;
}

export function desiredStateOf(framework: Framework, values: Readonly<Record<string, unknown>>, extras: DesiredExtras = {}): DesiredState {
  const state: DesiredState = {
    frameworkVersion: framework.version,
    frameworkHash: frameworkDigest(framework),
    values,
    params: framework.params.map((p) => ({
      name: p.name,
      ...(p.trigger !== undefined ? { trigger: p.trigger } : {}),
      ...(p.immutable === true ? { immutable: true } : {}),
      ...(p.sensitive === true ? { sensitive: true } : {}),
    })),
    plans: Object.keys(framework.decl.plans).sort(),
  };
  if (extras.request) state.request = extras.request;
  if (extras.removed === true) state.removed = true;
  return state;
}
