/**
 * `baton new framework` (issue 14): GIVEN an empty repository and each workload kind THEN the skeleton
 * validates with no problem at all, its test case passes unchanged against the simulated cluster, and a
 * second run refuses to overwrite; bad names and versions are refused.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

function captureIO(): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd: process.cwd(), exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe('baton new framework', () => {
  it.each([['statefulset', 'StatefulSet'], ['deployment', 'Deployment']])('GIVEN --kind %s THEN validate and test pass on the skeleton unchanged', async (kind) => {
    const repo = mkdtempSync(join(tmpdir(), 'baton-new-'));
    temps.push(repo);
    mkdirSync(join(repo, 'instances'));
    const created = captureIO();
    expect(await main(['node', 'baton', 'new', 'framework', 'web', '--kind', kind, '--repo', repo], created)).toBe(0);
    expect(readdirSync(join(repo, 'frameworks/web/0.1.0')).sort()).toEqual(['README.md', 'framework.yaml', 'params.yaml', 'templates', 'tests']);
    const validated = captureIO();
    expect(await main(['node', 'baton', 'validate', join(repo, 'frameworks/web')], validated)).toBe(0);
    expect(validated.out).toBe('ok: checked 1 version(s) of framework web\n');
    const tested = captureIO();
    expect(await main(['node', 'baton', 'test', join(repo, 'frameworks/web/0.1.0')], tested)).toBe(0);
    expect(tested.out).toContain('1 passed, 0 failed');
    const again = captureIO();
    expect(await main(['node', 'baton', 'new', 'framework', 'web', '--repo', repo], again)).toBe(1);
    expect(again.err).toContain('never overwrites');
  }, 120_000);

  it.each([
    ['a name that is not a DNS label', ['Web_App']],
    ['a version that is not semver', ['web', '--framework-version', '1.0']],
    ['an unknown kind', ['web', '--kind', 'daemonset']],
  ])('GIVEN %s THEN refuses', async (_name, args) => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'new', 'framework', ...args, '--repo', tmpdir()], io)).not.toBe(0);
  });
});
