/** `baton preview` says what a scale-down does with the removed replicas (framework.yaml `decommission:`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Renderer } from '../../src/render/index.js';
import { treesAt } from '../../src/preview/git-trees.js';
import { buildPreview } from '../../src/preview/preview.js';
import { formatMarkdown } from '../../src/preview/format-markdown.js';
import { formatText } from '../../src/preview/format-text.js';
import { catalogFrameworkFiles } from '../helpers/catalog-files.js';
import { FixtureRepo } from '../preview/fixture-repo.js';

let renderer: Renderer;
beforeAll(() => { renderer = new Renderer(); });
afterAll(async () => renderer.close());

function withCatalogRedis(repo: FixtureRepo, framework?: (text: string) => string): void {
  for (const [path, text] of Object.entries(catalogFrameworkFiles('redis', '1.1.0', framework))) repo.write(path, text);
}
const redis = (replicas: number): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: redis\nversion: 1.1.0\nparams: { REPLICAS: ${replicas} }\n`;

async function previewScaleDown(framework?: (text: string) => string): Promise<ReturnType<typeof buildPreview>> {
  const repo = new FixtureRepo();
  try {
    withCatalogRedis(repo, framework);
    repo.write('instances/prod/cache.yaml', redis(3));
    const base = repo.commit('three replicas');
    repo.write('instances/prod/cache.yaml', redis(1));
    const head = repo.commit('one replica');
    const trees = await treesAt(repo.dir, base, head);
    return await buildPreview({ base: trees.base, head: trees.head, baseRef: 'main', headRef: 'change', renderer, now: new Date('2026-11-23T10:00:00Z') });
  } finally {
    repo.cleanup();
  }
}

describe('preview of a scale-down', () => {
  it('GIVEN the catalog Redis (decommission volumes: delete) WHEN REPLICAS goes from 3 to 1 THEN the preview names the removed pods and the claims it will delete', async () => {
    const report = await previewScaleDown();
    const inst = report.instances.find((i) => i.instance.name === 'cache');
    expect(inst?.outcome === 'run' && inst.scaleDowns).toEqual([{ statefulSet: 'cache-replica', pods: ['cache-replica-2', 'cache-replica-1'], claims: ['data-cache-replica-2', 'data-cache-replica-1'], volumes: 'delete' }]);
    expect(formatText(report)).toContain('  scale-down StatefulSet cache-replica: removes cache-replica-2, cache-replica-1; deletes claims data-cache-replica-2, data-cache-replica-1 once it completed');
    expect(formatMarkdown(report)).toContain('**Scale-down:**');
  });

  it('GIVEN volumes: keep THEN the preview says the claims are kept', async () => {
    const report = await previewScaleDown((t) => t.replace(/\ndecommission:\n {2}volumes: delete\n/, '\ndecommission:\n  volumes: keep\n'));
    expect(formatText(report)).toContain('keeps claims data-cache-replica-2, data-cache-replica-1 (decommission.volumes: keep)');
  });
});
