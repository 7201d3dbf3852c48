/** The pod status a real kubelet reports for each stage, and the Events it emits on the way. */
import type { KubeObject } from '../../../kube/object.js';
import { kubeTime, nameOf, record, records, str } from '../runtime/meta.js';
import { badImages, imageOf } from '../sim.js';
import type { PodStage } from './stage.js';
import { SIM_LOG, SIM_TERMINATION_MESSAGE, perContainer } from '../../annotations.js';

export interface Placement {
  nodeName: string;
  hostIP: string;
  podIP: string;
  scheduledAt: number;
}

type Cond = { type: string; status: 'True' | 'False'; reason?: string; message?: string; lastTransitionTime: string; lastProbeTime: null };

function cond(type: string, ok: boolean, at: number, reason?: string, message?: string): Cond {
  const c: Cond = { type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: kubeTime(at) };
  if (reason !== undefined) c.reason = reason;
  if (message !== undefined) c.message = message;
  return c;
}

export function containersOf(pod: KubeObject): Record<string, unknown>[] {
  return records(record(pod.spec).containers);
}

function containerId(pod: KubeObject, name: string, restarts: number): string {
  return `containerd://${(pod.metadata.uid ?? nameOf(pod)).replace(/-/g, '')}${name}${restarts}`.slice(0, 77);
}

export function unschedulableStatus(pod: KubeObject, nodes: number, at: number): Record<string, unknown> {
  return {
    phase: 'Pending',
    conditions: [cond('PodScheduled', false, at, 'Unschedulable', unschedulableMessage(nodes))],
    qosClass: 'BestEffort',
  };
}

export function unschedulableMessage(nodes: number): string {
  return `0/${nodes} nodes are available: ${nodes} node(s) didn't match Pod's node affinity/selector (sim.baton.dev/fail: pending). preemption: 0/${nodes} nodes are available.`;
}

export function podStatus(pod: KubeObject, stage: PodStage, place: Placement, failAllImages: boolean): Record<string, unknown> {
  const bad = new Set(badImages(pod));
  const at = place.scheduledAt;
  const containerStatuses = containersOf(pod).map((c) => {
    const name = str(c.name) ?? '';
    const image = imageOf(c);
    const base = { name, image, imageID: '', restartCount: 0, ready: false, started: false };
    const pullFails = stage.kind === 'image-pull-backoff' && (failAllImages || bad.has(image));
    switch (stage.kind) {
      case 'unschedulable':
      case 'creating':
        return { ...base, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} };
      case 'image-pull-backoff':
        if (pullFails) return { ...base, state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } }, lastState: {} };
        return running(pod, base, image, at, false);
      case 'running':
        return running(pod, base, image, stage.startedAt, false);
      case 'ready':
        return running(pod, base, image, stage.startedAt, true);
      case 'crash-loop':
        return {
          ...base,
          imageID: imageId(image),
          containerID: containerId(pod, name, stage.restarts),
          restartCount: stage.restarts,
          state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(stage.backoffMs)}ms restarting failed container=${name} pod=${nameOf(pod)}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})` } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', ...terminationMessage(pod, c, 1), startedAt: kubeTime(stage.lastStartedAt), finishedAt: kubeTime(stage.lastFinishedAt), containerID: containerId(pod, name, stage.restarts - 1) } },
        };
      case 'succeeded':
      case 'failed': {
        const ok = stage.kind === 'succeeded';
        const exitCode = ok ? 0 : 1;
        const terminated = { exitCode, reason: ok ? 'Completed' : 'Error', ...terminationMessage(pod, c, exitCode), startedAt: kubeTime(stage.startedAt), finishedAt: kubeTime(stage.finishedAt), containerID: containerId(pod, name, 0) };
        return { ...base, imageID: imageId(image), containerID: containerId(pod, name, 0), state: { terminated }, lastState: {} };
      }
    }
  });

  const ready = stage.kind === 'ready';
  const terminal = stage.kind === 'succeeded' || stage.kind === 'failed';
  const readyAt = stage.kind === 'ready' ? stage.readyAt : terminal ? stage.finishedAt : at;
  const notReadyReason = terminal ? (stage.kind === 'succeeded' ? 'PodCompleted' : 'PodFailed') : 'ContainersNotReady';
  const notReady = containerStatuses.filter((c) => !c.ready).map((c) => c.name);
  const notReadyMessage = terminal ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  const phase = { 'image-pull-backoff': 'Pending', creating: 'Pending', unschedulable: 'Pending', running: 'Running', ready: 'Running', 'crash-loop': 'Running', succeeded: 'Succeeded', failed: 'Failed' }[stage.kind];
  return {
    phase,
    conditions: [
      cond('PodReadyToStartContainers', stage.kind !== 'creating', at),
      cond('Initialized', true, at, terminal ? notReadyReason : undefined),
      ready ? cond('Ready', true, readyAt) : cond('Ready', false, readyAt, notReadyReason, notReadyMessage),
      ready ? cond('ContainersReady', true, readyAt) : cond('ContainersReady', false, readyAt, notReadyReason, notReadyMessage),
      cond('PodScheduled', true, at),
    ],
    hostIP: place.hostIP,
    hostIPs: [{ ip: place.hostIP }],
    podIP: place.podIP,
    podIPs: [{ ip: place.podIP }],
    startTime: kubeTime(at),
    containerStatuses,
    qosClass: 'BestEffort',
  };
}

/** The kubelet's termination log limits: 4096 bytes from the file, 80 lines / 2048 bytes from logs. */
const MESSAGE_BYTES = 4096;
const FALLBACK_LINES = 80;
const FALLBACK_BYTES = 2048;

/**
 * `state.terminated.message`: what the container wrote to its termination log (declared with
 * `sim.baton.dev/termination-message`), or with `terminationMessagePolicy: FallbackToLogsOnError` and
 * a failure, the tail of its declared output, as a real kubelet reads them.
 */
export function terminationMessage(pod: KubeObject, container: Record<string, unknown>, exitCode: number): { message?: string } {
  const name = str(container.name) ?? '';
  const written = perContainer(pod.metadata.annotations, SIM_TERMINATION_MESSAGE, name);
  if (written !== undefined && written !== '') return { message: Buffer.from(written).subarray(0, MESSAGE_BYTES).toString('utf8') };
  if (exitCode === 0 || container.terminationMessagePolicy !== 'FallbackToLogsOnError') return {};
  const logs = perContainer(pod.metadata.annotations, SIM_LOG, name);
  if (logs === undefined || logs === '') return {};
  const tail = logs.replace(/\n$/, '').split('\n').slice(-FALLBACK_LINES).join('\n');
  const bytes = Buffer.from(tail);
  return { message: bytes.subarray(Math.max(0, bytes.length - FALLBACK_BYTES)).toString('utf8') };
}

function imageId(image: string): string {
  return `docker.io/library/${image}@sha256:${'0'.repeat(64)}`.replace(/^docker\.io\/library\/(.*\/.*)@/, '$1@');
}

function running(pod: KubeObject, base: Record<string, unknown>, image: string, startedAt: number, ready: boolean): Record<string, unknown> {
  const name = String(base.name);
  return { ...base, imageID: imageId(image), containerID: containerId(pod, name, 0), ready, started: true, state: { running: { startedAt: kubeTime(startedAt) } }, lastState: {} };
}

export interface KubeletEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  component: 'kubelet' | 'default-scheduler';
}

/** Events for moving from `before` (undefined: first sight) to `after`. */
export function stageEvents(pod: KubeObject, before: PodStage['kind'] | undefined, after: PodStage, nodeName: string, failAllImages: boolean, nodes: number): KubeletEvent[] {
  const events: KubeletEvent[] = [];
  const push = (type: KubeletEvent['type'], reason: string, message: string, component: KubeletEvent['component'] = 'kubelet'): void => void events.push({ type, reason, message, component });
  const full = `${pod.metadata.namespace ?? ''}/${nameOf(pod)}`;
  if (before === after.kind && after.kind !== 'crash-loop') return events;
  if (before === undefined && after.kind !== 'unschedulable') push('Normal', 'Scheduled', `Successfully assigned ${full} to ${nodeName}`, 'default-scheduler');
  const containers = containersOf(pod);
  const started = (): void => {
    for (const c of containers) {
      push('Normal', 'Pulled', `Container image "${imageOf(c)}" already present on machine`);
      push('Normal', 'Created', `Created container ${str(c.name) ?? ''}`);
      push('Normal', 'Started', `Started container ${str(c.name) ?? ''}`);
    }
  };
  switch (after.kind) {
    case 'unschedulable':
      push('Warning', 'FailedScheduling', unschedulableMessage(nodes), 'default-scheduler');
      break;
    case 'creating':
      break;
    case 'image-pull-backoff':
      events.push(...pullFailures(pod, failAllImages));
      break;
    case 'running':
    case 'ready':
    case 'succeeded':
    case 'failed':
      if (before === undefined || before === 'creating') started();
      if (after.kind === 'running' && pod.metadata.annotations?.['sim.baton.dev/fail'] === 'never-ready') {
        push('Warning', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503');
      }
      break;
    case 'crash-loop':
      if (before === undefined || before === 'creating') started();
      for (const c of containers) push('Warning', 'BackOff', `Back-off restarting failed container ${str(c.name) ?? ''} in pod ${nameOf(pod)}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`);
      break;
  }
  return events;
}

function pullFailures(pod: KubeObject, failAllImages: boolean): KubeletEvent[] {
  const bad = new Set(badImages(pod));
  const events: KubeletEvent[] = [];
  const push = (type: KubeletEvent['type'], reason: string, message: string): void => void events.push({ type, reason, message, component: 'kubelet' });
  for (const c of containersOf(pod)) {
    const image = imageOf(c);
    if (!failAllImages && !bad.has(image)) continue;
    push('Normal', 'Pulling', `Pulling image "${image}"`);
    push('Warning', 'Failed', `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": not found`);
    push('Warning', 'Failed', 'Error: ErrImagePull');
    push('Normal', 'BackOff', `Back-off pulling image "${image}"`);
    push('Warning', 'Failed', 'Error: ImagePullBackOff');
  }
  return events;
}
