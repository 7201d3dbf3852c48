/**
 * Field ownership end to end: the simulated API server over HTTP, kubectl as the person changing
 * things out of band, Baton's engine applying plans. Git wins for the fields a framework renders;
 * fields it does not render stay with whoever set them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { withoutFields } from '../../src/plans/ownership.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { RenderedPlan } from '../../src/render/types.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { apply, plan, step } from './fixtures.js';

let cluster: TestCluster;
let client: HttpKubeClient;

beforeAll(async () => {
  cluster = await startTestCluster();
  client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
});
afterAll(async () => {
  client.close();
  await cluster.stop();
});

const NS = 'demo';

function echo(image: string, replicas: number | undefined): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'echo', namespace: NS, labels: { 'app.kubernetes.io/instance': 'echo' } },
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: { app: 'echo' } },
      template: { metadata: { labels: { app: 'echo' } }, spec: { containers: [{ name: 'echo', image }] } },
    },
  };
}

/** Runs `name` as the plan a value change selects (values carry the image and replicas). */
async function runPlan(instance: string, name: 'deploy' | 'update', object: KubeObject): Promise<ReconcileResult> {
  const p: RenderedPlan = { ...plan(name, [{ name: 'main', steps: [step('app', [apply({ ...object, metadata: { ...object.metadata, name: instance } })])] }]), instance: { name: instance, namespace: NS } };
  return reconcile({
    client,
    store: new ConfigMapCheckpointStore(client),
    hooks: { ...defaultHooks(), gate: () => ({ state: 'done', message: 'ready' }) },
    instance: { name: instance, namespace: NS },
    framework: 'echo',
    desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { SPEC: JSON.stringify(object['spec']) }, params: [{ name: 'SPEC' }], plans: ['deploy', 'update'] },
    render: async () => p,
  });
}

const deployment = async (name: string): Promise<KubeObject | undefined> => client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name });
const outcomeOf = (r: ReconcileResult): string => (r.kind === 'ran' ? `${r.execution.outcome}${r.execution.outcome === 'failed' ? `: ${r.execution.error.message}` : ''}` : r.kind);

describe('field ownership against the simulated cluster and kubectl', () => {
  it('GIVEN a person ran kubectl scale WHEN Git changes a value THEN the update completes and Git wins for the replicas it renders, every time', async () => {
    expect(outcomeOf(await runPlan('echo', 'deploy', echo('echo:1', 2)))).toBe('complete');
    const scaled = await cluster.kubectl(['-n', NS, 'scale', 'deploy', 'echo', '--replicas=4']);
    expect(scaled.code, scaled.stderr).toBe(0);
    expect((await deployment('echo'))?.metadata.managedFields?.map((m) => m.manager)).toContain('kubectl');

    expect(outcomeOf(await runPlan('echo', 'update', echo('echo:2', 3)))).toBe('complete');
    const live = await deployment('echo');
    expect(live?.['spec']).toMatchObject({ replicas: 3, template: { spec: { containers: [{ image: 'echo:2' }] } } });
    // Baton owns the field again; the next update after another scale is not blocked either.
    expect(JSON.stringify(live?.metadata.managedFields?.find((m) => m.manager === 'baton')?.fieldsV1)).toContain('f:replicas');
    expect((await cluster.kubectl(['-n', NS, 'scale', 'deploy', 'echo', '--replicas=5'])).code).toBe(0);
    expect(outcomeOf(await runPlan('echo', 'update', echo('echo:3', 3)))).toBe('complete');
    expect((await deployment('echo'))?.['spec']).toMatchObject({ replicas: 3 });
  });

  it('GIVEN a template that omits replicas and an autoscaler that scales WHEN Git changes the image THEN the autoscaler keeps its replicas', async () => {
    expect(outcomeOf(await runPlan('auto', 'deploy', echo('echo:1', undefined)))).toBe('complete');
    // The autoscaler writes through the scale subresource under its own field manager.
    const scaled = await cluster.kubectl(['-n', NS, 'scale', 'deploy', 'auto', '--replicas=7']);
    expect(scaled.code, scaled.stderr).toBe(0);
    expect(outcomeOf(await runPlan('auto', 'update', echo('echo:2', undefined)))).toBe('complete');
    expect((await deployment('auto'))?.['spec']).toMatchObject({ replicas: 7, template: { spec: { containers: [{ image: 'echo:2' }] } } });
  });
});

describe('withoutFields: leaving conflicting fields out of an apply', () => {
  const obj: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web', app: 'x' } },
    spec: {
      replicas: 2,
      template: { spec: { containers: [{ name: 'web', image: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }] }, { name: 'side', image: 'b' }] } },
    },
  };

  it('removes plain, dotted-key, keyed-list and multi-key paths as the API server prints them', () => {
    const out = withoutFields(obj, ['.spec.replicas', '.metadata.labels.app.kubernetes.io/name', '.spec.template.spec.containers[name="side"].image', '.spec.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]']);
    expect(out?.['spec']).toEqual({ template: { spec: { containers: [{ name: 'web', image: 'a', ports: [] }, { name: 'side' }] } } });
    expect(out?.metadata.labels).toEqual({ app: 'x' });
    // The input is not changed.
    expect((obj['spec'] as { replicas: number }).replicas).toBe(2);
  });

  it('answers undefined for a path that is not in the object, so the caller fails instead of guessing', () => {
    expect(withoutFields(obj, ['.spec.paused'])).toBeUndefined();
    expect(withoutFields(obj, ['.spec.template.spec.containers[name="nope"].image'])).toBeUndefined();
  });
});
