/** The simulated containers' output as `pods/log` serves it, and the termination message the kubelet reports. */
import { describe, expect, it } from 'vitest';
import { terminationMessage } from '../../../src/cluster/controllers/kubelet/pod-status.js';
import { formatLogs, podLogs } from '../../../src/cluster/server/podlogs.js';
import type { KubeObject } from '../../../src/kube/object.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

function pod(annotations: Record<string, string>, state: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', annotations },
    spec: { containers: [{ name: 'main', image: 'busybox:1', ...extra }] },
    status: { containerStatuses: [{ name: 'main', ready: true, state, ...(extra.lastState ? { lastState: extra.lastState } : {}) }] },
  };
}

describe('pods/log', () => {
  it('GIVEN declared output THEN the log is exactly those lines, from the container start', () => {
    const p = pod({ 'sim.baton.dev/log': 'hello\nresult=42\n' }, { running: { startedAt: iso(T0) } });
    const logs = podLogs(p, undefined, false);
    expect(logs).toEqual({ kind: 'lines', finished: false, lines: [{ at: T0, text: 'hello' }, { at: T0 + 1, text: 'result=42' }] });
    if (logs.kind !== 'lines') return;
    expect(formatLogs(logs.lines, { timestamps: false }, T0)).toBe('hello\nresult=42\n');
    expect(formatLogs(logs.lines, { timestamps: true, tailLines: 1 }, T0)).toBe('2025-01-01T00:00:00.001000000Z result=42\n');
  });

  it('a per-container annotation wins over the pod-wide one', () => {
    const p = pod({ 'sim.baton.dev/log': 'all', 'sim.baton.dev/log.main': 'mine' }, { running: { startedAt: iso(T0) } });
    expect(podLogs(p, 'main', false)).toMatchObject({ lines: [{ text: 'mine' }] });
  });

  it('GIVEN no declared output THEN the simulation describes the start, probes and the exit', () => {
    const p = pod({}, { terminated: { exitCode: 0, startedAt: iso(T0), finishedAt: iso(T0 + 2000) } }, { readinessProbe: { httpGet: { port: 80 } } });
    const logs = podLogs(p, undefined, false);
    expect(logs).toMatchObject({ kind: 'lines', finished: true });
    if (logs.kind === 'lines') expect(logs.lines.map((l) => l.text)).toEqual(['[baton-sim] container main started (image busybox:1)', '[baton-sim] container main exited with code 0']);
  });

  it.each([
    ['a container still being created', { waiting: { reason: 'ContainerCreating' } }, undefined, false, 'container "main" in pod "p" is waiting to start: ContainerCreating'],
    ['an unknown container', { running: { startedAt: iso(T0) } }, 'other', false, 'container other is not valid for pod p'],
    ['--previous without a previous run', { running: { startedAt: iso(T0) } }, undefined, true, 'previous terminated container "main" in pod "p" not found'],
  ])('answers the real error for %s', (_n, state, container, previous, message) => {
    expect(podLogs(pod({}, state), container, previous)).toEqual({ kind: 'error', message });
  });

  it('--previous shows the last run of a restarted container', () => {
    const p = pod({ 'sim.baton.dev/log': 'boom' }, { waiting: { reason: 'CrashLoopBackOff' } }, { lastState: { terminated: { exitCode: 1, startedAt: iso(T0), finishedAt: iso(T0 + 50) } } });
    expect(podLogs(p, undefined, true)).toMatchObject({ kind: 'lines', lines: [{ text: 'boom' }], finished: true });
  });
});

describe('termination message', () => {
  const container = (policy?: string): Record<string, unknown> => ({ name: 'main', image: 'x', ...(policy ? { terminationMessagePolicy: policy } : {}) });
  const meta = (annotations: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations } });

  it('is what the container declared it writes to its termination log, on success or failure', () => {
    expect(terminationMessage(meta({ 'sim.baton.dev/termination-message': '{"rows":3}' }), container(), 0)).toEqual({ message: '{"rows":3}' });
    expect(terminationMessage(meta({ 'sim.baton.dev/termination-message.main': 'bad input' }), container(), 1)).toEqual({ message: 'bad input' });
  });

  it('falls back to the tail of the output on failure with FallbackToLogsOnError, and only then', () => {
    const logs = { 'sim.baton.dev/log': `${Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n')}\n` };
    const message = terminationMessage(meta(logs), container('FallbackToLogsOnError'), 1).message ?? '';
    expect(message.split('\n')).toHaveLength(80);
    expect(message.endsWith('line 99')).toBe(true);
    expect(terminationMessage(meta(logs), container('FallbackToLogsOnError'), 0)).toEqual({});
    expect(terminationMessage(meta(logs), container(), 1)).toEqual({});
  });
});
