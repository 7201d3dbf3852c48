/**
 * `baton plan status --git`: the status the agent committed, read from a repository at the tip of the
 * (status) branch, without a cluster.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { buildStatus, formatStatus } from '../../src/sync/status-file.js';

let repo: string;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' };
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim();

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-plan-status-'));
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'status/ops'), { recursive: true });
  const status = buildStatus({ instance: { namespace: 'ops', name: 'web' }, framework: { name: 'web', version: '1.0.0' }, sourceCommit: 'a'.repeat(40), observed: { instance: 'blob1' }, now: '2026-11-22T10:00:00Z' });
  writeFileSync(join(repo, 'status/ops/web.yaml'), formatStatus(status));
  git('add', '-A');
  git('commit', '-qm', 'ops/web: status');
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function captureIO(): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

describe('baton plan status --git', () => {
  it('prints the committed status of an instance (exit 0)', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'plan', 'status', 'ops/web', '--git', '.'], io)).toBe(0);
    expect(io.out).toContain('# status/ops/web.yaml at');
    expect(io.out).toContain(`sourceCommit: ${'a'.repeat(40)}`);
  });

  it('gives JSON with -o json', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'plan', 'status', 'instances/ops/web.yaml', '--git', repo, '-o', 'json'], io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ git: { found: true, status: { instance: { namespace: 'ops', name: 'web' }, updatedAt: '2026-11-22T10:00:00Z' } } });
  });

  it.each([
    ['an instance the agent never reported on', ['ops/other', '--git', '.'], 1, 'no status/ops/other.yaml on main'],
    ['a branch that does not exist', ['ops/web', '--git', '.', '--status-branch', 'nope'], 1, 'branch nope does not exist'],
    ['an instance argument of the wrong shape', ['not an instance', '--git', '.'], 2, 'expected namespace/instance'],
  ])('names %s', async (_name, args, code, message) => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'plan', 'status', ...args], io)).toBe(code);
    expect(io.err).toContain(message);
  });
});
