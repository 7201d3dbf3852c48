import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Renderer } from '../../src/render/index.js';
import { treesAt } from '../../src/preview/git-trees.js';
import { buildPreview } from '../../src/preview/preview.js';
import { formatMarkdown } from '../../src/preview/format-markdown.js';
import { formatText } from '../../src/preview/format-text.js';
import type { InstancePreview, PreviewReport } from '../../src/preview/types.js';
import { FixtureRepo } from './fixture-repo.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const SECRET = 's3cret-value-1';
const NEW_SECRET = 'an0ther-secret-2';
const BASE_PARAMS = { PASSWORD: SECRET, REPLICAS: 1 };

let renderer: Renderer;
let repo: FixtureRepo;

beforeAll(() => {
  renderer = new Renderer();
});
afterAll(async () => {
  await renderer.close();
});
beforeEach((ctx) => {
  repo = new FixtureRepo();
  ctx.onTestFinished(() => repo.cleanup());
});

/** GIVEN the base commit prepared by `arrange`, WHEN `change` is committed on top, THEN the preview of the two. */
async function previewOf(arrange: () => void, change: () => void): Promise<PreviewReport> {
  arrange();
  const base = repo.commit('base');
  change();
  const head = repo.commit('change');
  const trees = await treesAt(repo.dir, base, head);
  return buildPreview({ base: trees.base, head: trees.head, baseRef: 'main', headRef: 'change', renderer, now: NOW });
}

function only(report: PreviewReport): InstancePreview {
  expect(report.instances).toHaveLength(1);
  return report.instances[0]!;
}

const oneInstance = (): void => repo.instance('prod', 'cache', '1.0.0', BASE_PARAMS);

describe('baton preview', () => {
  it('a values change runs the update plan and shows the changed object as a diff', async () => {
    const report = await previewOf(oneInstance, () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, MAXMEMORY: '96mb' }));
    const inst = only(report);
    expect(inst).toMatchObject({ outcome: 'run', plan: 'update', reasons: ['values changed: MAXMEMORY'] });
    expect(report.acceptable).toBe(true);
    const md = formatMarkdown(report);
    expect(md).toContain('-  maxmemory: 64mb');
    expect(md).toContain('+  maxmemory: 96mb');
    expect(md).toMatchSnapshot();
  });

  it('a version bump runs the upgrade plan of the new version', async () => {
    const report = await previewOf(oneInstance, () => repo.instance('prod', 'cache', '1.1.0', BASE_PARAMS));
    expect(only(report)).toMatchObject({ outcome: 'run', plan: 'upgrade', reasons: ['framework version 1.0.0 -> 1.1.0'] });
    expect(formatMarkdown(report)).toContain('+          image: redis:7.2');
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('a new instance runs deploy and lists every object as created', async () => {
    const report = await previewOf(() => repo.write('README.md', 'x'), oneInstance);
    const inst = only(report);
    expect(inst).toMatchObject({ outcome: 'run', plan: 'deploy', reasons: ['new instance'] });
    if (inst.outcome !== 'run') throw new Error('unreachable');
    expect(inst.steps.flatMap((s) => s.changes.map((c) => c.change))).toEqual(['create', 'create', 'create']);
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('a removed instance runs cleanup and prunes everything it owned', async () => {
    const report = await previewOf(oneInstance, () => repo.remove('instances/prod/cache.yaml'));
    const inst = only(report);
    expect(inst).toMatchObject({ outcome: 'remove', cleanupPlan: 'cleanup' });
    if (inst.outcome !== 'remove') throw new Error('unreachable');
    expect(inst.pruned.map((r) => `${r.kind}/${r.name}`)).toEqual(['StatefulSet/cache', 'ConfigMap/cache-config', 'Secret/cache-auth']);
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('a change to the files of a published framework version affects every instance on it, with a warning', async () => {
    const report = await previewOf(
      () => {
        repo.instance('prod', 'a', '1.0.0', BASE_PARAMS);
        repo.instance('prod', 'b', '1.0.0', BASE_PARAMS);
        repo.instance('prod', 'c', '1.1.0', BASE_PARAMS);
      },
      () => repo.write('frameworks/kv/1.0.0/templates/config.yaml.ejs', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + \'-config\' %>\ndata:\n  maxmemory: <%= params.MAXMEMORY %>\n'),
    );
    expect(report.instances.map((i) => `${i.instance.name}:${i.outcome === 'run' ? i.plan : i.outcome}`)).toEqual(['a:update', 'b:update']);
    for (const i of report.instances) expect(i.outcome === 'run' && i.warnings[0]).toMatch(/published framework version 1.0.0 changed/);
    expect(report.frameworks).toEqual([{ name: 'kv', version: '1.0.0', change: 'changed', instancesUsing: ['prod/a', 'prod/b'], instancesThatCouldMove: ['prod/c'] }]);
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('a new framework version lists the instances it would affect once they move to it', async () => {
    const report = await previewOf(oneInstance, () => repo.writeFramework('1.2.0', true));
    expect(report.instances).toEqual([]);
    expect(report.frameworks).toEqual([{ name: 'kv', version: '1.2.0', change: 'added', instancesUsing: [], instancesThatCouldMove: ['prod/cache'] }]);
    expect(formatMarkdown(report)).toContain('Affected once they move to 1.2.0: `prod/cache`');
  });

  it.each([
    ['an immutable parameter changed', () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, STORAGE_CLASS: 'fast' }), 'IMMUTABLE_PARAM', /STORAGE_CLASS/],
    ['parameters that trigger different plans changed together', () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, MAXMEMORY: '1gb', BACKUP_BUCKET: 'other' }), 'PLAN_CONFLICT', /BACKUP_BUCKET -> backup.*MAXMEMORY -> update|MAXMEMORY -> update.*BACKUP_BUCKET -> backup/],
    ['an invalid value', () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, REPLICAS: 0 }), 'PARAM_MINIMUM', /REPLICAS/],
    ['a missing framework version', () => repo.instance('prod', 'cache', '2.0.0', BASE_PARAMS), 'INSTANCE_VERSION_UNKNOWN', /no version 2.0.0/],
    ['an unknown parameter', () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, NOPE: 1 }), 'PARAM_UNKNOWN', /NOPE/],
  ])('refuses a change where %s, and the report is not acceptable', async (_name, change, code, message) => {
    const report = await previewOf(oneInstance, change);
    const inst = only(report);
    expect(inst.outcome).toBe('refused');
    if (inst.outcome !== 'refused') throw new Error('unreachable');
    expect(inst.code).toBe(code);
    expect(`${inst.message} ${inst.details.join(' ')}`).toMatch(message);
    expect(report.acceptable).toBe(false);
  });

  it('refuses a downgrade to a lower existing version', async () => {
    const report = await previewOf(
      () => repo.instance('prod', 'cache', '1.1.0', BASE_PARAMS),
      () => repo.instance('prod', 'cache', '1.0.0', BASE_PARAMS),
    );
    expect(only(report)).toMatchObject({ outcome: 'refused', code: 'VERSION_DOWNGRADE' });
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('shows that a sensitive value changed without ever printing it', async () => {
    const report = await previewOf(oneInstance, () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, PASSWORD: NEW_SECRET }));
    expect(only(report)).toMatchObject({ outcome: 'run', plan: 'update' });
    for (const text of [formatMarkdown(report), formatText(report), JSON.stringify(report)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(NEW_SECRET);
      expect(text).not.toContain(Buffer.from(NEW_SECRET).toString('base64'));
    }
    expect(formatMarkdown(report)).toContain('change Secret prod/cache-auth');
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('a schedule change alone runs no plan and shows the next run times', async () => {
    const report = await previewOf(
      () => repo.instance('prod', 'cache', '1.0.0', BASE_PARAMS, 'schedules:\n  - { plan: backup, cron: "0 2 * * *", timezone: Europe/Berlin }\n'),
      () => repo.instance('prod', 'cache', '1.0.0', BASE_PARAMS, 'schedules:\n  - { plan: backup, cron: "30 4 * * *", timezone: Europe/Berlin }\n'),
    );
    const inst = only(report);
    expect(inst).toMatchObject({ outcome: 'no-plan', reasons: ['only schedules changed'] });
    if (inst.outcome !== 'no-plan') throw new Error('unreachable');
    expect(inst.schedules).toEqual([
      { change: 'changed', plan: 'backup', cron: '30 4 * * *', previousCron: '0 2 * * *', timezone: 'Europe/Berlin', nextRuns: ['2026-11-23T03:30:00.000Z', '2026-11-24T03:30:00.000Z', '2026-11-25T03:30:00.000Z'] },
    ]);
    expect(formatMarkdown(report)).toMatchSnapshot();
  });

  it('an unrelated change affects no instance', async () => {
    const report = await previewOf(oneInstance, () => repo.write('README.md', 'docs'));
    expect(report).toMatchObject({ instances: [], frameworks: [], acceptable: true });
    expect(formatMarkdown(report)).toContain('No instance is affected.');
  });

  it('works the same on a bare clone (the agent\'s) as on a checkout', async () => {
    oneInstance();
    const base = repo.commit('base');
    repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, MAXMEMORY: '96mb' });
    const head = repo.commit('change');
    const bare = `${repo.dir}-bare.git`;
    repo.git('clone', '-q', '--bare', repo.dir, bare);
    try {
      const trees = await treesAt(bare, base, head);
      const report = await buildPreview({ base: trees.base, head: trees.head, baseRef: 'main', headRef: 'change', renderer, now: NOW });
      expect(only(report)).toMatchObject({ outcome: 'run', plan: 'update' });
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('names an unknown ref and a folder that is not a repository', async () => {
    oneInstance();
    repo.commit('base');
    await expect(treesAt(repo.dir, 'no-such-branch', 'HEAD')).rejects.toThrow('--base no-such-branch: no such commit');
    await expect(treesAt(repo.dir, 'HEAD', '--upload-pack=x')).rejects.toThrow('is not a valid Git ref');
    await expect(treesAt(tmpdir(), 'HEAD', 'HEAD')).rejects.toThrow('is not a Git repository');
  });

  it('folds long diffs into collapsible details', async () => {
    const report = await previewOf(() => repo.write('README.md', 'x'), () => repo.instance('prod', 'cache', '1.0.0', { ...BASE_PARAMS, REPLICAS: 3 }));
    expect(formatMarkdown(report)).toMatch(/<details>\n<summary>➕ create StatefulSet prod\/cache<\/summary>/);
  });
});
