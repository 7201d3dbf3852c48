/**
 * Repository patterns run on RE2 (linear time): a catastrophic pattern cannot freeze validate or the
 * agent, and syntax RE2 does not have is a located PARAM_PATTERN_INVALID, never a backtracking run.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileRepoPattern } from '../../src/render/pattern.js';
import { resolveParams, validateRepository } from '../../src/render/index.js';
import { BATON_ARGV } from '../helpers/cli.js';
import { FIXTURES, miniRepo, testRenderer } from './helpers.js';

const EVIL = '^(a+)+$';
const EVIL_INPUT = `${'a'.repeat(40)}!`;
const renderer = testRenderer();
afterAll(() => renderer.close());

describe('repository patterns', () => {
  it('GIVEN a catastrophic pattern and 40 a\'s and a "!" THEN the value is refused at once (RE2, not backtracking)', () => {
    const r = resolveParams([{ name: 'P', type: 'string', pattern: EVIL }], { P: EVIL_INPUT });
    expect(r.problems.map((p) => p.code)).toEqual(['PARAM_PATTERN']);
    expect(resolveParams([{ name: 'P', type: 'string', pattern: EVIL }], { P: 'aaaa' }).problems).toEqual([]);
  });

  it.each([
    ['(a)\\1', 'backreferences'],
    ['^(?=a)a$', 'lookahead'],
    ['^(?<=a)b$', 'lookahead and lookbehind'],
    ['^\\u00e9$', '\\x{00e9}'],
    ['^a++$', 'possessive'],
    ['^[a-z]{1,2000}$', 'invalid repeat count'],
  ])('GIVEN the pattern %s that RE2 does not support THEN it is a located PARAM_PATTERN_INVALID naming why (%s)', async (pattern, why) => {
    const compiled = compileRepoPattern(pattern);
    expect(compiled.ok).toBe(false);
    const tree = miniRepo({ 'frameworks/web/1.0.0/params.yaml': `- name: VALUE\n  default: v\n  pattern: '${pattern}'\n` });
    const report = await validateRepository(tree, renderer);
    const found = report.problems.find((p) => p.code === 'PARAM_PATTERN_INVALID');
    expect(found).toMatchObject({ file: 'frameworks/web/1.0.0/params.yaml', line: 3, column: 12, path: [0, 'pattern'] });
    expect(found!.message).toContain(why);
    expect(found!.message).toContain('RE2');
  });

  it('GIVEN the catalog\'s patterns THEN RE2 accepts every one with the meaning they had', () => {
    expect(compileRepoPattern('^[^"\\\\\\s]*$')).toMatchObject({ ok: true });
    const image = compileRepoPattern('^[a-z0-9./_:@-]+$');
    expect(image.ok && image.test('redis:7.2')).toBe(true);
    expect(image.ok && image.test('Redis:7.2')).toBe(false);
  });

  it('GIVEN `baton validate` on a repository whose default hits a catastrophic pattern THEN it answers (exit 1, located) instead of hanging', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-redos-'));
    try {
      cpSync(join(FIXTURES, 'bad-input', '_base'), dir, { recursive: true });
      writeFileSync(join(dir, 'frameworks/app/1.0.0/params.yaml'), `- name: NAME\n  default: "${EVIL_INPUT}"\n  pattern: '${EVIL}'\n`);
      writeFileSync(join(dir, 'instances/apps/app.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: app\nversion: 1.0.0\n');
      // On a backtracking engine this child never ends; the bound is far above the ~2 s it needs.
      const run = spawnSync(BATON_ARGV[0]!, [...BATON_ARGV.slice(1), 'validate', dir], { encoding: 'utf8', timeout: 60_000 });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stdout + run.stderr).toMatch(/frameworks\/app\/1\.0\.0\/params\.yaml:2:\d+: error PARAM_DEFAULT_INVALID/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
