/**
 * Reliability: the bad-input corpus (test/fixtures/bad-input, one case per folder: files overlaid on
 * _base/, expect.yaml naming the problems). Every case must (1) make `baton validate` fail with each
 * expected problem at its file (and line/column where listed), (2) never quote the base instance's
 * sensitive value, and (3) change nothing: the instance it concerns is refused by the agent's own
 * loading and rendering path before the engine touches the cluster (zero writes to the API), unless the
 * case says `agent: unaffected` (a file that names no instance's content: a misplaced file, a request).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../src/plans/checkpoint.js';
import { loadInstanceSource } from '../../src/plans/instance-source.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import { RenderProblemsError, Renderer, hasErrors, scanLayout, validateRepository, type Problem, type RendererOptions } from '../../src/render/index.js';
import { FakeKube } from '../plans/fake-client.js';
import { autoReady, testHooks } from '../plans/fixtures.js';
import { FIXTURES, readFolder, treeOf } from '../render/helpers.js';
import { FigureCounter } from './local-figures.js';

const CORPUS = join(FIXTURES, 'bad-input');
const SECRET = 'hunter2-long';
const base = readFolder(join(CORPUS, '_base'));

interface Case {
  name: string;
  description: string;
  problems: Partial<Problem>[];
  files: Record<string, string>;
  absent: string[];
  renderer?: RendererOptions;
  agent?: 'unaffected';
  instance?: string;
}

const cases: Case[] = readdirSync(CORPUS).filter((n) => !n.startsWith('_')).map((name) => {
  const files = readFolder(join(CORPUS, name));
  const spec = load(readFileSync(join(CORPUS, name, 'expect.yaml'), 'utf8')) as Omit<Case, 'name' | 'files' | 'absent'>;
  delete files['expect.yaml'];
  const absent = Object.keys(files).filter((f) => f.endsWith('.absent')).map((f) => f.slice(0, -'.absent'.length));
  for (const f of Object.keys(files)) if (f.endsWith('.absent')) delete files[f];
  return { name, files, absent, ...spec };
});
const inputFiles = cases.reduce((n, c) => n + Object.keys(c.files).length + c.absent.length, 0);

const counter = new FigureCounter('bad-input');
const renderer = new Renderer({ timeoutMs: 1000, memoryMb: 64 });
afterAll(async () => {
  await renderer.close();
  counter.print();
});

describe(`the bad-input corpus: ${cases.length} cases, ${inputFiles} input files`, () => {
  it('holds at least 100 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it.each(cases)('$name: $description', async (c) => {
    await counter.run(async () => {
      const tree = treeOf(base, c.files);
      for (const f of c.absent) tree.delete(f);
      const own = c.renderer ? new Renderer(c.renderer) : undefined;
      const report = await validateRepository(tree, own ?? renderer).finally(() => own?.close());
      const errors = c.problems.filter((p) => (p.severity ?? 'error') === 'error');
      for (const expected of c.problems) expect(report.problems).toContainEqual(expect.objectContaining({ severity: 'error', ...expected }));
      for (const p of report.problems) expect(p.message).not.toContain(SECRET);
      // A warning-only case (validate accepts it) is checked for its warning only.
      if (errors.length === 0) return;
      expect(report.ok).toBe(false);
      if (c.agent === 'unaffected') return;
      // The agent's path: the layout (two files, a link), then load, then render before anything is applied.
      const kube = new FakeKube();
      autoReady(kube);
      const file = c.instance ?? 'instances/apps/app.yaml';
      const layoutRefusal = (await scanLayout(tree)).instances.find((i) => i.file === file)?.problems ?? [];
      let outcome: unknown;
      if (hasErrors(layoutRefusal)) outcome = new RenderProblemsError(layoutRefusal);
      else {
        try {
          const source = await loadInstanceSource(tree, file, renderer);
          outcome = await reconcile({ client: kube, store: new MemoryCheckpointStore(), hooks: testHooks, instance: { namespace: source.instance.namespace, name: source.instance.name }, framework: source.framework.name, desired: source.desired, render: source.render, sensitiveValues: source.sensitiveValues });
        } catch (err) {
          outcome = err;
        }
      }
      const refused = outcome instanceof RenderProblemsError || (outcome as ReconcileResult | undefined)?.kind === 'refused';
      expect(refused, JSON.stringify(outcome)).toBe(true);
      expect(JSON.stringify(outcome instanceof RenderProblemsError ? outcome.problems : outcome)).not.toContain(SECRET);
      expect(kube.objects.size).toBe(0);
    });
  });
});
