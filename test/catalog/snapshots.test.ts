/**
 * GIVEN every catalog framework version and every repo-template instance
 * WHEN each of their plans is rendered by the real renderer (sandbox, checks, enhancement)
 * THEN it renders without errors, and the RenderedPlan value the engine would execute matches the
 * reviewed snapshot under __snapshots__/ (one YAML file per framework version or instance and plan).
 */
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { listInstances, loadInstance, loadInstanceFramework, Renderer, renderInstancePlan, type RenderedPlan } from '../../src/render/index.js';
import { catalogVersions, formatProblems, loadCatalogFramework, renderOk, templateTree } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

/** Keys sorted, so the snapshots follow what is rendered, not the order the enhancer adds fields in. */
function snapshotText(plan: RenderedPlan): string {
  return yaml.dump(plan, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true, sortKeys: true });
}

describe.each(catalogVersions())('catalog framework $label rendered with its defaults', (v) => {
  it('renders every plan, each matching its snapshot', async () => {
    const framework = await loadCatalogFramework(v);
    const plans = Object.keys(framework.decl.plans).sort();
    expect(plans).toContain('deploy');
    for (const plan of plans) {
      const rendered = await renderOk(renderer, { framework, plan });
      await expect(snapshotText(rendered)).toMatchFileSnapshot(`__snapshots__/defaults/${v.name}-${v.version}/${plan}.yaml`);
    }
  });
});

describe('repo-template instances', async () => {
  const files = await listInstances(templateTree);

  it('has the example instances the demo deploys', () => {
    expect(files).toEqual(['instances/platform/zk.yaml', 'instances/shop/cache.yaml', 'instances/shop/orders-db.yaml']);
  });

  it.each(files)('%s renders every plan of its framework, each matching its snapshot', async (file) => {
    const instance = await loadInstance(templateTree, file);
    if (!instance.ok) throw new Error(formatProblems(instance.problems));
    const framework = await loadInstanceFramework(templateTree, instance.value);
    if (!framework.ok) throw new Error(formatProblems(framework.problems));
    for (const plan of Object.keys(framework.value.decl.plans).sort()) {
      const result = await renderInstancePlan(templateTree, file, { plan, renderer });
      if (!result.ok) throw new Error(`${file} plan ${plan}:\n${formatProblems(result.problems)}`);
      expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
      const name = file.replace(/^instances\//, '').replace(/\.yaml$/, '').replace('/', '-');
      await expect(snapshotText(result.plan)).toMatchFileSnapshot(`__snapshots__/repo-template/${name}/${plan}.yaml`);
    }
  });
});
