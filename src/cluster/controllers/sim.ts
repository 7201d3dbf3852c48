/**
 * How a test asks the simulation for failures and timings, per object: annotations on a workload, its
 * pod template (inherited by pods) or a PVC, plus one image rule users would hit by mistake (a tag
 * `does-not-exist` cannot be pulled). See docs/cluster-workloads.md.
 */
import type { KubeObject } from '../../kube/object.js';
import { record, records, str } from './runtime/meta.js';
import type { SimulationTiming } from './types.js';

export const SIM_PREFIX = 'sim.baton.dev/';
export const SIM_FAIL = 'sim.baton.dev/fail';
export const SIM_START_DELAY = 'sim.baton.dev/start-delay-ms';
export const SIM_READY_DELAY = 'sim.baton.dev/ready-delay-ms';
export const SIM_RUN = 'sim.baton.dev/run-ms';

export const FAILURE_MODES = ['image-pull', 'crash-loop', 'never-ready', 'job-fail', 'pending'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export function isFailureMode(value: string | undefined): value is FailureMode {
  return (FAILURE_MODES as readonly string[]).includes(value ?? '');
}

/** The failure asked for by annotation, else by the image rule. */
export function failureOf(obj: KubeObject): FailureMode | undefined {
  const asked = obj.metadata.annotations?.[SIM_FAIL];
  if (isFailureMode(asked)) return asked;
  if (obj.kind === 'Pod' && badImages(obj).length > 0) return 'image-pull';
  return undefined;
}

export function imageOf(container: Record<string, unknown>): string {
  return str(container.image) ?? '';
}

/** Images whose tag is `does-not-exist`. */
export function badImages(pod: KubeObject): string[] {
  return records(record(pod.spec).containers)
    .map(imageOf)
    .filter((image) => /:does-not-exist(@.*)?$/.test(image));
}

export interface PodTiming {
  startMs: number;
  readyMs: number;
  /** How long a run-to-completion pod runs. */
  runMs: number;
}

function annotationMs(obj: KubeObject, key: string, fallback: number): number {
  const raw = obj.metadata.annotations?.[key];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

export function podTiming(pod: KubeObject, defaults: SimulationTiming): PodTiming {
  const readyMs = annotationMs(pod, SIM_READY_DELAY, defaults.readyDelayMs);
  return {
    startMs: annotationMs(pod, SIM_START_DELAY, defaults.podStartDelayMs),
    readyMs,
    runMs: annotationMs(pod, SIM_RUN, readyMs),
  };
}

/** The `sim.baton.dev/*` annotations of a workload, to pass down to what it creates. */
export function simAnnotations(obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj.metadata.annotations ?? {})) if (k.startsWith(SIM_PREFIX)) out[k] = v;
  return out;
}
