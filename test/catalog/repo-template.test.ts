/**
 * The repository users start from (`baton init` copies repo-template/) and the catalog documentation:
 * GIVEN the catalog and the template as they are in this repository,
 * THEN both validate cleanly, the template has no catalog copy of its own (baton init copies frameworks/), every
 * parameter is documented, and the example instances stay small enough for the simulated cluster.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listInstances, loadInstance, loadSettings, Renderer, renderInstancePlan, validateRepository } from '../../src/render/index.js';
import { at, catalogTree, catalogVersions, CATALOG_DIR, containersOf, formatProblems, loadCatalogFramework, objectsOf, ROOT, TEMPLATE_DIR, templateTree } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());


describe.each([
  ['the catalog', catalogTree],
  ['the repo-template', templateTree],
] as const)('%s', (_name, tree) => {
  it('validates with no errors', async () => {
    const report = await validateRepository(tree, renderer);
    expect(formatProblems(report.problems.filter((p) => p.severity === 'error'))).toBe('');
    expect(report.frameworks).toBe(catalogVersions().length);
  });

  it('validates with no warnings either (no unused parameters, tasks or templates)', async () => {
    const report = await validateRepository(tree, renderer);
    expect(formatProblems(report.problems)).toBe('');
  });
});

describe('repo-template', () => {
  it('has no copy of the catalog: baton init copies frameworks/ in (one source)', () => {
    expect(existsSync(path.join(TEMPLATE_DIR, 'frameworks'))).toBe(false);
  });

  it('has repository settings that load, a README and a .gitignore that keeps the desired state tracked', async () => {
    const settings = await loadSettings(templateTree);
    expect(settings.ok).toBe(true);
    expect(readFileSync(path.join(TEMPLATE_DIR, 'README.md'), 'utf8')).toContain('baton validate');
    const ignored = readFileSync(path.join(TEMPLATE_DIR, '.gitignore'), 'utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(ignored.filter((l) => /^(\/)?(instances|frameworks|status|baton\.yaml)/.test(l))).toEqual([]);
  });

  it('schedules a nightly backup of the redis and postgresql examples', async () => {
    const schedules: Record<string, unknown> = {};
    for (const file of await listInstances(templateTree)) {
      const inst = await loadInstance(templateTree, file);
      if (!inst.ok) throw new Error(formatProblems(inst.problems));
      schedules[`${inst.value.decl.framework} ${file}`] = inst.value.decl.schedules.map((s) => s.plan);
    }
    expect(schedules).toEqual({
      'zookeeper instances/platform/zk.yaml': [],
      'redis instances/shop/cache.yaml': ['backup'],
      'postgresql instances/shop/orders-db.yaml': ['backup'],
    });
  });

  it('keeps the example instances small: 3 ZooKeeper servers, Redis 1 primary + 1 replica, 1 PostgreSQL, under 1.5 GiB of memory requests', async () => {
    const pods: string[] = [];
    let memoryMi = 0;
    for (const file of await listInstances(templateTree)) {
      const result = await renderInstancePlan(templateTree, file, { renderer });
      if (!result.ok) throw new Error(formatProblems(result.problems));
      for (const sts of objectsOf(result.plan, 'StatefulSet')) {
        const replicas = Number(at(sts, ['spec', 'replicas']));
        pods.push(`${sts.metadata.name ?? ''} x${replicas}`);
        for (const c of containersOf(at(sts, ['spec', 'template', 'spec']) as Record<string, unknown>)) {
          memoryMi += replicas * toMi(String(at(c, ['resources', 'requests', 'memory'])));
        }
      }
    }
    expect(pods.sort()).toEqual(['cache-primary x1', 'cache-replica x1', 'orders-db x1', 'zk x3']);
    expect(memoryMi).toBeLessThanOrEqual(1536);
  });
});

describe('documentation', () => {
  it.each(catalogVersions())('the README of $label documents every parameter, and only declared ones', async (v) => {
    const framework = await loadCatalogFramework(v);
    const readme = readFileSync(path.join(CATALOG_DIR, v.name, v.version, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(framework.params.map((p) => p.name));
  });

  it.each(catalogVersions())('docs/catalog.md lists $label with its plans', async (v) => {
    const framework = await loadCatalogFramework(v);
    const row = readFileSync(path.join(ROOT, 'docs', 'catalog.md'), 'utf8')
      .split('\n')
      .find((l) => l.includes(`frameworks/${v.name}/${v.version}/README.md`));
    expect(row).toBeDefined();
    for (const plan of Object.keys(framework.decl.plans)) expect(row).toContain(`\`${plan}\``);
  });

  it.each(catalogVersions())('every parameter of $label has a description and a group', async (v) => {
    const framework = await loadCatalogFramework(v);
    expect(framework.params.filter((p) => !p.description || !p.group).map((p) => p.name)).toEqual([]);
  });
});

function toMi(quantity: string): number {
  const m = /^(\d+(?:\.\d+)?)(Mi|Gi)$/.exec(quantity);
  if (!m) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}
