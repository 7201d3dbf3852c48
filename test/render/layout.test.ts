/**
 * Issue #11 items 12 and 13: the repository layout rules (render/layout.ts) as `baton validate` applies
 * them, request files, `__proto__` parameters, and non-text files reported without raw bytes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatProblems, scanLayout, validateRepository, type Problem } from '../../src/render/index.js';
import { miniRepo, testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const INSTANCE = 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\n';
const REQUEST = 'apiVersion: baton.dev/v1alpha1\nkind: PlanRequest\nid: r-1\nplan: deploy\n';
const codes = (ps: readonly Problem[]): string[] => ps.map((p) => `${p.file} ${p.severity} ${p.code}`);

describe('the repository layout', () => {
  it('GIVEN .yaml, .yml, a duplicate, a link, a nested folder and stray files THEN each is decided and said', async () => {
    const tree = miniRepo({
      'instances/apps/b.yml': INSTANCE,
      'instances/apps/c.yaml': INSTANCE,
      'instances/apps/c.yml': INSTANCE,
      'instances/apps/sub/d.yaml': INSTANCE,
      'instances/e.yaml': INSTANCE,
      'instances/apps/README.md': 'notes',
      'instances/apps/.gitkeep': '',
    }).symlink('instances/apps/l.yaml', '../../x.yaml');
    const layout = await scanLayout(tree);
    expect(layout.instances.map((i) => [i.file, i.problems.map((p) => p.code)])).toEqual([
      ['instances/apps/b.yml', []],
      ['instances/apps/c.yaml', ['INSTANCE_DUPLICATE', 'INSTANCE_DUPLICATE']],
      ['instances/apps/l.yaml', ['INSTANCE_SYMLINK']],
      ['instances/apps/site.yaml', []],
    ]);
    expect(codes(layout.problems)).toEqual(['instances/apps/README.md warning INSTANCE_FILE_IGNORED', 'instances/apps/sub/ error INSTANCE_PATH', 'instances/e.yaml error INSTANCE_PATH']);
    const report = await validateRepository(tree, renderer);
    expect(report.instances).toBe(4);
    expect(codes(report.problems)).toEqual(expect.arrayContaining([
      'instances/apps/c.yaml error INSTANCE_DUPLICATE', 'instances/apps/c.yml error INSTANCE_DUPLICATE', 'instances/apps/l.yaml error INSTANCE_SYMLINK', 'instances/apps/sub/ error INSTANCE_PATH',
    ]));
  });

  it.each([
    ['a valid request', { 'requests/apps/site.yaml': REQUEST }, []],
    ['a request for an instance that does not exist', { 'requests/apps/ghost.yaml': REQUEST }, ['requests/apps/ghost.yaml error REQUEST_INSTANCE_UNKNOWN']],
    ['a request naming a plan the framework lacks', { 'requests/apps/site.yaml': REQUEST.replace('deploy', 'nope') }, ['requests/apps/site.yaml error PLAN_UNKNOWN']],
    ['a request with an unknown field', { 'requests/apps/site.yaml': `${REQUEST}extra: 1\n` }, ['requests/apps/site.yaml error SCHEMA_UNKNOWN_FIELD']],
    ['a request that is not YAML', { 'requests/apps/site.yaml': 'id: [\n' }, ['requests/apps/site.yaml error YAML_SYNTAX']],
    ['a request with the .yml extension', { 'requests/apps/site.yml': REQUEST }, ['requests/apps/site.yml error REQUEST_PATH']],
  ])('GIVEN %s THEN validate reports it', async (_name, files, expected) => {
    const report = await validateRepository(miniRepo(files), renderer);
    expect(codes(report.problems.filter((p) => p.file.startsWith('requests/')))).toEqual(expected);
  });

  it('GIVEN a request with a bad field THEN the problem is located at its line', async () => {
    const report = await validateRepository(miniRepo({ 'requests/apps/site.yaml': REQUEST.replace('deploy', 'nope') }), renderer);
    expect(report.problems.find((p) => p.code === 'PLAN_UNKNOWN')).toMatchObject({ line: 4, column: 7, path: ['plan'] });
  });

  it('GIVEN an instance setting __proto__ THEN it is PARAM_UNKNOWN at its line, not dropped', async () => {
    const report = await validateRepository(miniRepo({ 'instances/apps/site.yaml': `${INSTANCE}params:\n  __proto__: { VALUE: injected }\n` }), renderer);
    expect(report.problems.find((p) => p.code === 'PARAM_UNKNOWN')).toMatchObject({ file: 'instances/apps/site.yaml', line: 6, column: 3 });
  });

  it('GIVEN a parameter declared as __proto__ THEN params.yaml is refused at the name', async () => {
    const report = await validateRepository(miniRepo({ 'frameworks/web/1.0.0/params.yaml': '- { name: __proto__, default: v }\n- { name: VALUE, default: v }\n' }), renderer);
    expect(report.problems.find((p) => p.path.join('.') === '0.name')).toMatchObject({ code: 'SCHEMA_VALUE', file: 'frameworks/web/1.0.0/params.yaml', line: 1 });
  });

  it('GIVEN binary junk as an instance file THEN validate says it is not text and prints no raw bytes', async () => {
    const junk = new Uint8Array(600).map((_, i) => (i * 37) % 256);
    const tree = miniRepo();
    tree.set('instances/apps/site.yaml', junk);
    tree.set('baton.yaml', new Uint8Array([0x61, 0x3a, 0x20, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0x0a]));
    const report = await validateRepository(tree, renderer);
    expect(report.problems.find((p) => p.file === 'instances/apps/site.yaml')).toMatchObject({ code: 'FILE_NOT_TEXT' });
    const text = formatProblems(report.problems, { sources: new Map([['baton.yaml', 'a: \u001b[2J\ufffd\ufffd\n']]) });
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\ufffd]/);
  });
});
