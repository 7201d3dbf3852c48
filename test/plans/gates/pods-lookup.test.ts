import { describe, expect, it } from 'vitest';
import type { KubeClient, ListOptions, ListResult } from '../../../src/kube/client.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { explainFromCluster, gateFor, isWorkload, matchLabelsSelector } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

/** A KubeClient that only lists pods, recording what it was asked. */
function podLister(pods: KubeObject[]): { client: KubeClient; asked: string[] } {
  const asked: string[] = [];
  const list = async (apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): Promise<ListResult> => {
    asked.push(`${apiVersion}/${kind} ${namespace ?? '*'} ${options.labelSelector ?? ''}`);
    return { items: pods, resourceVersion: '1' };
  };
  const refuse = (): never => {
    throw new Error('only list is expected');
  };
  const client = { list, resourceFor: refuse, get: refuse, watch: refuse, create: refuse, update: refuse, updateStatus: refuse, patch: refuse, apply: refuse, delete: refuse } as KubeClient;
  return { client, asked };
}

const deploy = obj(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: app, generation: 1 }
spec: { replicas: 2, selector: { matchLabels: { app: web }, matchExpressions: [{ key: tier, operator: In, values: [front] }] } }
status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 1 }
`);
const badPod = obj(`
apiVersion: v1
kind: Pod
metadata: { name: web-abc, namespace: app, labels: { app: web, tier: front }, creationTimestamp: "2026-01-01T11:59:50Z" }
status: { phase: Pending, containerStatuses: [{ name: c, image: "web:typo", state: { waiting: { reason: ErrImagePull } } }] }
`);
const otherTier = { ...badPod, metadata: { ...badPod.metadata, name: 'web-back', labels: { app: 'web', tier: 'back' } } };

describe('explainFromCluster: the engine asks why a workload waits', () => {
  it('GIVEN a waiting Deployment THEN its pods are listed by matchLabels, filtered by expressions, and the troubled one named', async () => {
    const { client, asked } = podLister([badPod, otherTier]);
    const explained = await explainFromCluster(client, deploy, gateFor(deploy, ctx()), ctx());
    expect(asked).toEqual(['v1/Pod app app=web']);
    expect(explained.result).toEqual({ state: 'waiting', message: '1/2 replicas available; pod web-abc: ErrImagePull (image web:typo)' });
  });

  it('GIVEN a done gate or a kind without pods THEN nothing is requested', async () => {
    const { client, asked } = podLister([badPod]);
    const cm = obj('{ apiVersion: v1, kind: ConfigMap, metadata: { name: c, namespace: app } }');
    await explainFromCluster(client, cm, { state: 'waiting', message: 'x' }, ctx());
    await explainFromCluster(client, deploy, { state: 'done', message: 'ok' }, ctx());
    expect(asked).toEqual([]);
  });

  it.each([
    ['a Deployment', { apiVersion: 'apps/v1', kind: 'Deployment' }, true],
    ['a Job', { apiVersion: 'batch/v1', kind: 'Job' }, true],
    ['a Service', { apiVersion: 'v1', kind: 'Service' }, false],
  ])('%s is a workload: %s', (_name, ref, expected) => {
    expect(isWorkload(ref)).toBe(expected);
  });

  it('matchLabelsSelector joins labels and is undefined without any', () => {
    expect(matchLabelsSelector({ matchLabels: { a: '1', b: '2' } })).toBe('a=1,b=2');
    expect(matchLabelsSelector({ matchExpressions: [] })).toBeUndefined();
  });
});
