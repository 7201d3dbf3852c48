/**
 * The simulated containers' output, derived from the pod as the kubelet reported it (no container
 * runs): a container that declares its output (`sim.baton.dev/log`, or `sim.baton.dev/log.<container>`
 * on the pod or its template) prints exactly those lines each time it starts; one that does not gets
 * lines describing what the simulation did (started, probes, exit), marked `[baton-sim]`.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { SIM_LOG, perContainer } from '../annotations.js';

export interface LogLine {
  /** Milliseconds since the epoch. */
  at: number;
  text: string;
}

export type LogResult =
  | { kind: 'lines'; lines: LogLine[]; /** The container will print no more (it ended). */ finished: boolean }
  | { kind: 'error'; message: string };

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});
const records = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const time = (v: unknown): number | undefined => (typeof v === 'string' ? Date.parse(v) : undefined);

function declared(pod: KubeObject, container: string): string[] | undefined {
  const text = perContainer(pod.metadata.annotations, SIM_LOG, container);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One run of a container: what it prints from `startedAt` on (and when it ended, if it did). */
function runLines(pod: KubeObject, container: Obj, startedAt: number, ended: { at: number; exitCode: number } | undefined, ready: boolean): LogLine[] {
  const name = String(container.name);
  const own = declared(pod, name);
  if (own) return own.map((text, i) => ({ at: startedAt + i, text }));
  const out: LogLine[] = [{ at: startedAt, text: `[baton-sim] container ${name} started (image ${String(container.image)})` }];
  const ready0 = asObj(records(asObj(pod.status).conditions).find((c) => c.type === 'Ready'));
  if (isRecord(container.readinessProbe)) {
    if (ready) out.push({ at: time(ready0.lastTransitionTime) ?? startedAt, text: '[baton-sim] readiness probe succeeded' });
    else if (pod.metadata.annotations?.['sim.baton.dev/fail'] === 'never-ready') out.push({ at: startedAt, text: '[baton-sim] readiness probe failed: HTTP probe failed with statuscode: 503' });
  }
  if (isRecord(container.livenessProbe) && !ended) out.push({ at: startedAt, text: '[baton-sim] liveness probe succeeded' });
  if (ended) out.push({ at: ended.at, text: `[baton-sim] container ${name} exited with code ${ended.exitCode}` });
  return out;
}

function terminated(state: Obj): { startedAt: number; at: number; exitCode: number } | undefined {
  const t = asObj(state.terminated);
  const started = time(t.startedAt);
  const finished = time(t.finishedAt);
  if (started === undefined || finished === undefined) return undefined;
  return { startedAt: started, at: finished, exitCode: typeof t.exitCode === 'number' ? t.exitCode : 0 };
}

/** What `GET pods/<name>/log?container=<c>&previous=<p>` answers. */
export function podLogs(pod: KubeObject, containerName: string | undefined, previous: boolean): LogResult {
  const podName = pod.metadata.name ?? '';
  const spec = asObj(pod.spec);
  const containers = [...records(spec.initContainers), ...records(spec.containers)];
  const names = records(spec.containers).map((c) => String(c.name));
  if (containerName === undefined && names.length > 1) {
    return { kind: 'error', message: `a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]` };
  }
  const wanted = containerName ?? names[0] ?? '';
  const container = containers.find((c) => c.name === wanted);
  if (!container) return { kind: 'error', message: `container ${wanted} is not valid for pod ${podName}` };
  const status = asObj(pod.status);
  const cs = [...records(status.initContainerStatuses), ...records(status.containerStatuses)].find((s) => s.name === wanted);
  if (previous) {
    const last = terminated(asObj(cs?.lastState));
    if (!last) return { kind: 'error', message: `previous terminated container "${wanted}" in pod "${podName}" not found` };
    return { kind: 'lines', lines: runLines(pod, container, last.startedAt, last, false), finished: true };
  }
  const state = asObj(cs?.state);
  const running = time(asObj(state.running).startedAt);
  if (running !== undefined) return { kind: 'lines', lines: runLines(pod, container, running, undefined, cs?.ready === true), finished: false };
  const ended = terminated(state);
  if (ended) return { kind: 'lines', lines: runLines(pod, container, ended.startedAt, ended, false), finished: true };
  const waiting = asObj(state.waiting);
  const reason = typeof waiting.reason === 'string' ? waiting.reason : 'ContainerCreating';
  // A crash-looping container between restarts shows its last run, as `kubectl logs` does.
  const last = terminated(asObj(cs?.lastState));
  if (last && reason === 'CrashLoopBackOff') return { kind: 'lines', lines: runLines(pod, container, last.startedAt, last, false), finished: false };
  return { kind: 'error', message: `container "${wanted}" in pod "${podName}" is waiting to start: ${reason}` };
}

export interface LogOptions {
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: number;
}

/** Applies since/tail/limit and formats lines as the kubelet does (`<RFC3339Nano> <line>` with timestamps). */
export function formatLogs(lines: readonly LogLine[], opts: LogOptions, now: number): string {
  let selected = [...lines];
  const since = opts.sinceTime ?? (opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : undefined);
  if (since !== undefined) selected = selected.filter((l) => l.at >= since);
  if (opts.tailLines !== undefined) selected = opts.tailLines === 0 ? [] : selected.slice(-opts.tailLines);
  let text = selected.map((l) => `${opts.timestamps ? `${new Date(l.at).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ` : ''}${l.text}\n`).join('');
  if (opts.limitBytes !== undefined) text = Buffer.from(text).subarray(0, opts.limitBytes).toString('utf8');
  return text;
}
