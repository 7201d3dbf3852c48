/** Runs the simulated controllers against FakeKube with small real delays, and waits for conditions. */
import { startControllers, type ControllerManager, type SimulationTiming } from '../../../src/cluster/controllers/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { FakeKube } from './fake-kube.js';

export interface Harness {
  kube: FakeKube;
  manager: ControllerManager;
  errors: unknown[];
  stop(): Promise<void>;
}

export async function startHarness(timing: SimulationTiming = { podStartDelayMs: 10, readyDelayMs: 10 }, nodes = 2): Promise<Harness> {
  const kube = new FakeKube();
  const errors: unknown[] = [];
  const manager = startControllers({ server: { url: 'http://unused.invalid' }, timing, nodes, client: kube, onError: (_c, _k, err) => errors.push(err) });
  await manager.ready();
  return { kube, manager, errors, stop: () => manager.stop() };
}

/** Polls `check` until it returns a value (not undefined/false) or the time runs out. */
export async function eventually<T>(check: () => T | undefined | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function deployment(name: string, replicas: number, image = 'nginx:1.25', extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
      ...extra,
    },
  };
}

/** Tests read deep fields of API objects freely; one escape hatch, here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export const st = (obj: KubeObject | undefined): Loose => obj?.status ?? {};
/** The object as a Loose value, for deep reads. */
export const loose = (obj: unknown): Loose => obj;

/** The condition `type` has status `value`. */
export function hasCondition(obj: KubeObject | undefined, type: string, value = 'True'): boolean {
  const conditions: unknown = (obj?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown }) => c.type === type && c.status === value);
}

export function phaseOf(obj: KubeObject | undefined): string | undefined {
  const phase: unknown = (obj?.status as { phase?: unknown } | undefined)?.phase;
  return typeof phase === 'string' ? phase : undefined;
}
