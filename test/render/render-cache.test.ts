/**
 * Unchanged inputs are never rendered twice (issue 14): GIVEN the same framework content, instance,
 * values, plan and arguments THEN the sandbox renders once and later calls get an equal, independent
 * copy; any change of input renders again; failures are not kept.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadInstanceSource } from '../../src/plans/instance-source.js';
import { renderInstancePlan } from '../../src/render/index.js';
import { miniRepo, testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());
const SITE = 'instances/apps/site.yaml';

describe('render cache', () => {
  it('GIVEN the same inputs twice THEN the sandbox renders once and each caller gets its own copy', async () => {
    const run = vi.spyOn(renderer, 'runDeferred');
    const tree = miniRepo({ 'instances/apps/site.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams: { VALUE: once }\n' });
    const first = await renderInstancePlan(tree, SITE, { renderer });
    const second = await renderInstancePlan(miniRepo({ 'instances/apps/site.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams: { VALUE: once }\n' }), SITE, { renderer });
    expect(run).toHaveBeenCalledTimes(1);
    if (!first.ok || !second.ok) throw new Error('render failed');
    expect(second.plan).toEqual(first.plan);
    first.plan.phases[0]!.steps[0]!.actions[0]!.object.metadata.name = 'changed by a caller';
    const third = await renderInstancePlan(tree, SITE, { renderer });
    expect(third.ok && third.plan.phases[0]!.steps[0]!.actions[0]!.object.metadata.name).toBe('site');
    expect(run).toHaveBeenCalledTimes(1);
    run.mockRestore();
  });

  it.each([
    ['another value', { 'instances/apps/site.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams: { VALUE: other }\n' }, {}],
    ['another template content', { 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>-2\n' }, {}],
    ['other plan arguments', {}, { args: { X: '1' } }],
  ])('GIVEN %s THEN it renders again', async (_name, files, options) => {
    await renderInstancePlan(miniRepo(), SITE, { renderer });
    const run = vi.spyOn(renderer, 'runDeferred');
    const r = await renderInstancePlan(miniRepo(files), SITE, { renderer, ...options });
    expect(r.ok).toBe(true);
    expect(run).toHaveBeenCalledTimes(1);
    run.mockRestore();
  });

  it('GIVEN a render that fails THEN it is not kept: the next call renders again', async () => {
    const tree = miniRepo({ 'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.nme %>\n' });
    const run = vi.spyOn(renderer, 'runDeferred');
    expect((await renderInstancePlan(tree, SITE, { renderer })).ok).toBe(false);
    expect((await renderInstancePlan(tree, SITE, { renderer })).ok).toBe(false);
    expect(run).toHaveBeenCalledTimes(2);
    run.mockRestore();
  });

  it('GIVEN the agent path (render a plan, then the lifecycle plans for pruning) THEN each plan renders once per content', async () => {
    const tree = miniRepo({ 'instances/apps/site.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams: { VALUE: agent }\n' });
    const run = vi.spyOn(renderer, 'runDeferred');
    const source = await loadInstanceSource(tree, SITE, renderer);
    await source.render('deploy', {});
    await source.renderedObjects();
    // A second reconcile of the unchanged instance loads everything again and renders nothing.
    const again = await loadInstanceSource(tree, SITE, renderer);
    await again.render('deploy', {});
    await again.renderedObjects();
    expect(run).toHaveBeenCalledTimes(1);
    run.mockRestore();
  });

  it('GIVEN a renderer with the cache turned off (the render bench) THEN every call renders', async () => {
    const { Renderer } = await import('../../src/render/index.js');
    const off = new Renderer({ cacheEntries: 0 });
    const run = vi.spyOn(off, 'runDeferred');
    await renderInstancePlan(miniRepo(), SITE, { renderer: off });
    await renderInstancePlan(miniRepo(), SITE, { renderer: off });
    expect(run).toHaveBeenCalledTimes(2);
    await off.close();
  });
});
