/**
 * The bad-input corpus (test/fixtures/bad-input/<case>/): each case overlays a few files on _base/ and
 * lists in expect.yaml the problems `baton validate` must report, with code and location.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Renderer, validateRepository, type Problem, type RendererOptions } from '../../src/render/index.js';
import { FIXTURES, readFolder, testRenderer, treeOf } from './helpers.js';

const CORPUS = join(FIXTURES, 'bad-input');
const base = readFolder(join(CORPUS, '_base'));
const cases = readdirSync(CORPUS)
  .filter((name) => !name.startsWith('_'))
  .map((name) => {
    const files = readFolder(join(CORPUS, name));
    const expectFile = load(readFileSync(join(CORPUS, name, 'expect.yaml'), 'utf8')) as {
      description: string;
      problems: Partial<Problem>[];
      /** Sandbox limits for this case (a memory bomb needs time to reach the heap limit on a busy machine). */
      renderer?: RendererOptions;
    };
    delete files['expect.yaml'];
    // `<path>.absent` removes that file of the base repository.
    const absent = Object.keys(files).filter((f) => f.endsWith('.absent')).map((f) => f.slice(0, -'.absent'.length));
    for (const f of Object.keys(files)) if (f.endsWith('.absent')) delete files[f];
    return { name, files, absent, ...expectFile };
  });

const renderer = testRenderer();
afterAll(() => renderer.close());

describe('the bad-input corpus', () => {
  it('GIVEN the base repository THEN it validates without errors', async () => {
    const report = await validateRepository(treeOf(base), renderer);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it.each(cases)('$name: $description is reported with its code and location', async ({ files, absent, problems, renderer: limits }) => {
    const own = limits ? new Renderer(limits) : undefined;
    const tree = treeOf(base, files);
    for (const f of absent) tree.delete(f);
    const report = await validateRepository(tree, own ?? renderer).finally(() => own?.close());
    for (const expected of problems) {
      expect(report.problems).toContainEqual(expect.objectContaining(expected));
    }
    if (problems.some((p) => (p.severity ?? 'error') === 'error')) expect(report.ok).toBe(false);
    // The base instance's sensitive PASSWORD never appears in a message, whatever went wrong.
    for (const p of report.problems) expect(p.message).not.toContain('hunter2-long');
  });
});
