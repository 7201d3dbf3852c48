/** The HorizontalPodAutoscaler controller and the EndpointSlices the service controller keeps. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { desiredReplicas } from '../../../src/cluster/controllers/hpa.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { deployment, eventually, hasCondition, loose, startHarness, st, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ podStartDelayMs: 5, readyDelayMs: 5 }, 2);
});
afterEach(async () => {
  await h.stop();
});

const get = (kind: string, name: string): KubeObject | undefined => h.kube.all(kind).find((o) => o.metadata.name === name);
const hpa = (load?: number): KubeObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', ...(load !== undefined ? { annotations: { 'sim.baton.dev/cpu-load': String(load) } } : {}) },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 6, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
});

describe('desiredReplicas', () => {
  it.each([
    ['2 pods carrying 200% (100% each) want 4', 2, 200, 4, 'cpu resource utilization (percentage of request) above target'],
    ['4 pods carrying 100% (25% each) want 2', 4, 100, 2, 'cpu resource utilization (percentage of request) below target'],
    ['3 pods at 52% each stay (tolerance)', 3, 156, 3, 'within bounds'],
    ['the maximum caps the scale-up', 4, 2000, 6, 'cpu resource utilization (percentage of request) above target'],
    ['without metrics the minimum still holds', 1, undefined, 2, 'Current number of replicas below Spec.MinReplicas'],
  ])('%s', (_name, current, load, desired, reason) => {
    expect(desiredReplicas(hpa(), current, load)).toMatchObject({ desired, reason });
  });
});

describe('HorizontalPodAutoscaler', () => {
  it('GIVEN a declared load of four pods at the target THEN the Deployment is scaled to 4 and stays there', async () => {
    await h.kube.create(deployment('web', 2));
    await h.kube.create(hpa(200));
    await eventually(() => loose(get('Deployment', 'web')).spec.replicas === 4, 5000, 'scaled to 4');
    const status = await eventually((): unknown => st(get('HorizontalPodAutoscaler', 'web')).currentReplicas === 4 && st(get('HorizontalPodAutoscaler', 'web')), 5000, 'hpa status');
    expect(status).toMatchObject({ desiredReplicas: 4, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 50 } } }] });
    expect(hasCondition(get('HorizontalPodAutoscaler', 'web'), 'ScalingActive')).toBe(true);
    expect(h.kube.all('Event').some((e) => loose(e).reason === 'SuccessfulRescale' && /New size: 4/.test(loose(e).message))).toBe(true);
  });

  it('GIVEN no metrics THEN replicas are only kept within bounds and ScalingActive is False', async () => {
    await h.kube.create(deployment('web', 1));
    await h.kube.create(hpa());
    await eventually(() => loose(get('Deployment', 'web')).spec.replicas === 2, 5000, 'raised to minReplicas');
    await eventually(() => hasCondition(get('HorizontalPodAutoscaler', 'web'), 'ScalingActive', 'False'), 5000, 'no metrics condition');
  });
});

describe('EndpointSlices', () => {
  it('GIVEN a Service WHEN its pods become ready THEN its EndpointSlice lists them, labelled with the service name and owned by it', async () => {
    await h.kube.create(deployment('api', 2));
    await h.kube.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'default' }, spec: { selector: { app: 'api' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
    const slice = await eventually(() => {
      const s = h.kube.all('EndpointSlice').find((x) => x.metadata.labels?.['kubernetes.io/service-name'] === 'api');
      const ready = s !== undefined && loose(s).endpoints.length === 2 && loose(s).endpoints.every((e: { conditions: { ready: boolean } }) => e.conditions.ready);
      return ready ? s : undefined;
    }, 5000, 'slice with two ready endpoints');
    expect(slice.metadata.name).toMatch(/^api-/);
    expect(slice.metadata.labels?.['endpointslice.kubernetes.io/managed-by']).toBe('endpointslice-controller.k8s.io');
    expect(loose(slice)).toMatchObject({ addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] });
    expect(slice.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Service', name: 'api', controller: true });
  });
});
