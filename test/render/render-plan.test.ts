/**
 * Rendering a plan into the RenderedPlan value: structure, ordering inside batches, Toggle and Delete
 * tasks, enhancement (labels, annotations, namespace, config hash), checks, and determinism.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ANNOTATION_CONFIG_HASH,
  DirectoryTree,
  LABEL_INSTANCE,
  LABEL_MANAGED_BY,
  renderInstancePlan,
  type BatchAction,
  type FileTree,
  type RenderedPlan,
} from '../../src/render/index.js';
import { FIXTURES, miniRepo, readFolder, testRenderer, treeOf } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());
const BASIC = join(FIXTURES, 'repos', 'basic');
const INSTANCE = 'instances/apps/demo.yaml';

async function renderOk(tree: FileTree, file: string, plan = 'deploy', args: Record<string, string> = {}): Promise<RenderedPlan> {
  const r = await renderInstancePlan(tree, file, { plan, args, renderer });
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.code} ${p.file}:${p.line} ${p.message}`).join('\n'));
  return r.plan;
}

const summary = (a: BatchAction): string => `${a.action} ${a.object.kind}/${a.object.metadata.name ?? ''}`;

describe('renderPlan on the basic fixture repository', () => {
  it('GIVEN the deploy plan THEN phases and steps follow framework.yaml, each step one ordered batch', async () => {
    const plan = await renderOk(new DirectoryTree(BASIC), INSTANCE);
    expect(plan.plan).toBe('deploy');
    expect(plan.instance).toEqual({ name: 'demo', namespace: 'apps' });
    expect(plan.framework).toEqual({ name: 'demo', version: '1.0.0', appVersion: '3.9.2' });
    expect(plan.phases.map((ph) => [ph.name, ph.steps.map((s) => [s.name, s.timeoutSeconds, s.actions.map(summary)])])).toEqual([
      ['main', [
        ['config', 900, ['apply Secret/demo-auth', 'apply ConfigMap/demo-config']],
        ['servers', 900, ['apply Service/demo', 'apply StatefulSet/demo', 'apply ServiceMonitor/demo']],
      ]],
    ]);
    expect(plan.sensitiveParams).toEqual(['PASSWORD']);
    expect(plan.readiness).toEqual([{ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', readyCondition: 'Ready' }]);
  });

  it('GIVEN a Delete and an Apply task of the same object in one step THEN the delete comes first, and force is carried', async () => {
    const plan = await renderOk(new DirectoryTree(BASIC), INSTANCE, 'backup', { target: 's3://elsewhere' });
    const step = plan.phases[0]!.steps[0]!;
    expect(step.timeoutSeconds).toBe(1800);
    expect(step.actions.map((a) => [a.action, a.task, a.action === 'apply' ? a.force : null])).toEqual([
      ['delete', 'drop-backup-job', null],
      ['apply', 'backup', true],
    ]);
    expect(JSON.stringify(step.actions[1]!.object)).toContain('s3://elsewhere');
  });

  it.each([
    [true, 'apply'],
    [false, 'delete'],
  ])('GIVEN a Toggle parameter %s THEN its resources are a %s action', async (enabled, action) => {
    const files = readFolder(BASIC);
    files[INSTANCE] = files[INSTANCE]!.replace('METRICS_ENABLED: true', `METRICS_ENABLED: ${enabled}`);
    const plan = await renderOk(treeOf(files), INSTANCE);
    const monitor = plan.phases[0]!.steps[1]!.actions.find((a) => a.object.kind === 'ServiceMonitor');
    expect(monitor?.action).toBe(action);
  });

  it('enhances every object with labels, annotations and the instance namespace, and pod templates with labels', async () => {
    const plan = await renderOk(new DirectoryTree(BASIC), INSTANCE);
    const sts = plan.phases[0]!.steps[1]!.actions.find((a) => a.object.kind === 'StatefulSet')!.object;
    expect(sts.metadata.namespace).toBe('apps');
    expect(sts.metadata.labels).toMatchObject({ [LABEL_MANAGED_BY]: 'baton', 'app.kubernetes.io/name': 'demo', [LABEL_INSTANCE]: 'demo', 'baton.dev/framework-version': '1.0.0' });
    expect(sts.metadata.annotations).toEqual({ 'baton.dev/framework-version': '1.0.0', 'baton.dev/plan': 'deploy', 'baton.dev/phase': 'main', 'baton.dev/step': 'servers', 'baton.dev/owner': 'apps/demo' });
    const pod = (sts.spec as { template: { metadata: { labels: Record<string, string>; annotations: Record<string, string> } } }).template.metadata;
    expect(pod.labels[LABEL_MANAGED_BY]).toBe('baton');
    expect(pod.annotations[ANNOTATION_CONFIG_HASH]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes the pod template config hash when a mounted ConfigMap changes, and only then', async () => {
    const hashOf = async (files: Record<string, string>): Promise<string> => {
      const plan = await renderOk(treeOf(files), INSTANCE);
      const sts = plan.phases[0]!.steps[1]!.actions.find((a) => a.object.kind === 'StatefulSet')!.object;
      return (sts.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations[ANNOTATION_CONFIG_HASH]!;
    };
    const files = readFolder(BASIC);
    const before = await hashOf(files);
    expect(await hashOf(files)).toBe(before);
    expect(await hashOf({ ...files, [INSTANCE]: files[INSTANCE]!.replace('REPLICAS: 5', 'REPLICAS: 5\n  MEMORY: 2Gi') })).not.toBe(before);
    expect(await hashOf({ ...files, [INSTANCE]: files[INSTANCE]!.replace('REPLICAS: 5', 'REPLICAS: 4') })).toBe(before);
  });

  it('renders byte-identical output for the same inputs', async () => {
    const a = await renderOk(new DirectoryTree(BASIC), INSTANCE);
    const b = await renderOk(treeOf(readFolder(BASIC)), INSTANCE);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('keeps an injected value a string all the way into the object', async () => {
    const files = readFolder(BASIC);
    files[INSTANCE] = files[INSTANCE]!.replace('PASSWORD: s3cr3t-pa55', 'PASSWORD: s3cr3t-pa55\n  IMAGE: "x\\nkind: Secret"');
    const plan = await renderOk(treeOf(files), INSTANCE);
    const sts = plan.phases[0]!.steps[1]!.actions.find((a) => a.object.kind === 'StatefulSet')!.object;
    expect(sts.kind).toBe('StatefulSet');
    expect(JSON.stringify(sts.spec)).toContain('"image":"x\\nkind: Secret"');
  });
});

describe('renderPlan with optional parameters and printed values', () => {
  const SITE = 'instances/apps/site.yaml';
  const withTemplate = (params: string, data: string, instanceParams = ''): FileTree =>
    miniRepo({
      'frameworks/web/1.0.0/params.yaml': params,
      'frameworks/web/1.0.0/templates/main.yaml.ejs': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n${data}\n`,
      ...(instanceParams ? { [SITE]: `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams:\n${instanceParams}\n` } : {}),
    });
  const dataOf = (plan: RenderedPlan): unknown => plan.phases[0]!.steps[0]!.actions[0]!.object.data;

  it.each([
    ['an optional parameter without default and no value', '- { name: OPT, type: string, required: false }\n', ''],
    ['an optional integer with minimum and no value', '- { name: OPT, type: integer, required: false, minimum: 1 }\n', ''],
    ['a parameter with a default set to null in the instance', '- { name: OPT, type: string, default: set }\n', '  OPT: null'],
  ])('GIVEN %s THEN params.OPT || "none" renders none', async (_name, params, instanceParams) => {
    const plan = await renderOk(withTemplate(params, '  value: <%= params.OPT || "none" %>', instanceParams), SITE);
    expect(dataOf(plan)).toEqual({ value: 'none' });
  });

  it('GIVEN an optional parameter without default THEN printing it bare renders null', async () => {
    const plan = await renderOk(withTemplate('- { name: OPT, type: string, required: false }\n', '  value: <%= toJson(params.OPT) %>\n  bare: "<%- String(params.OPT) %>"'), SITE);
    expect(dataOf(plan)).toEqual({ value: 'null', bare: 'null' });
  });

  it('GIVEN a template printing a misspelt property THEN TEMPLATE_UNDEFINED names the template file and line', async () => {
    const r = await renderInstancePlan(withTemplate('- { name: VALUE, type: string, default: v }\n', '  value: <%= params.VALUE %>\n  name: <%= instance.nme %>'), SITE, { renderer });
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => [p.code, p.file, p.line, p.message])).toEqual([
      ['TEMPLATE_UNDEFINED', 'frameworks/web/1.0.0/templates/main.yaml.ejs', 7, 'the expression printed undefined (a misspelt property?); print null explicitly or use fallback()'],
    ]);
  });
});

describe('renderPlan checks', () => {
  it('GIVEN a plan the framework does not define THEN PLAN_UNKNOWN names the plans it has', async () => {
    const r = await renderInstancePlan(miniRepo(), 'instances/apps/site.yaml', { plan: 'upgrade', renderer });
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => [p.code, p.message])).toEqual([['PLAN_UNKNOWN', 'framework web 1.0.0 has no plan "upgrade" (plans: deploy)']]);
  });

  it('GIVEN a cluster-scoped kind THEN it gets no namespace', async () => {
    const plan = await renderOk(miniRepo({ 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: <%= instance.name %>\nrules: []\n' }), 'instances/apps/site.yaml');
    expect(plan.phases[0]!.steps[0]!.actions[0]!.object.metadata.namespace).toBeUndefined();
  });

  it('GIVEN an object in another namespace THEN RENDER_NAMESPACE_MISMATCH', async () => {
    const r = await renderInstancePlan(miniRepo({ 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a, namespace: kube-system }\n' }), 'instances/apps/site.yaml', { renderer });
    expect(r.problems.map((p) => p.code)).toEqual(['RENDER_NAMESPACE_MISMATCH']);
  });

  it('GIVEN the same object twice in one step THEN RENDER_DUPLICATE_OBJECT', async () => {
    const r = await renderInstancePlan(miniRepo({ 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n' }), 'instances/apps/site.yaml', { renderer });
    expect(r.problems.map((p) => p.code)).toEqual(['RENDER_DUPLICATE_OBJECT']);
  });

  it('GIVEN a namespaceManifest THEN its Namespace is the first action of the first step', async () => {
    const fw = miniRepo().read('frameworks/web/1.0.0/framework.yaml');
    const text = new TextDecoder().decode(await fw).replace('tasks:', 'namespaceManifest: ns.yaml.ejs\ntasks:');
    const plan = await renderOk(
      miniRepo({
        'frameworks/web/1.0.0/framework.yaml': text,
        'frameworks/web/1.0.0/templates/ns.yaml.ejs': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: <%= instance.namespace %>\n  labels: { team: web }\n',
      }),
      'instances/apps/site.yaml',
    );
    expect(plan.phases[0]!.steps[0]!.actions.map((a) => [summary(a), a.task])).toEqual([
      ['apply Namespace/apps', 'namespace'],
      ['apply ConfigMap/site', 'main'],
    ]);
  });

  it('GIVEN empty documents and comments in the output THEN they are dropped', async () => {
    const plan = await renderOk(miniRepo({ 'frameworks/web/1.0.0/templates/main.yaml.ejs': '# comment\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\n' }), 'instances/apps/site.yaml');
    expect(plan.phases[0]!.steps[0]!.actions.map(summary)).toEqual(['apply ConfigMap/a']);
  });
});
