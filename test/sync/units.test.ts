import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { verifyWebhook } from '../../src/sync/webhook.js';
import { resolveSettings, withRepositorySettings } from '../../src/sync/settings.js';
import { buildStatus, formatStatus, parseStatus, StatusFileError } from '../../src/sync/status-file.js';
import { normaliseSince } from '../../src/sync/history.js';
import { parseTrailers, formatMessage, redactUrl, GitRemoteRefusedError, normaliseRemote } from '../../src/git/index.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';

const body = Buffer.from('{"ref":"refs/heads/main"}');
const sign = (secret: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('webhook verification', () => {
  it.each([
    ['a GitHub push signed with the secret is accepted', { 'x-hub-signature-256': sign('s3cret') }, 's3cret', true],
    ['a GitHub push signed with another secret is refused', { 'x-hub-signature-256': sign('other') }, 's3cret', false],
    ['a GitLab push with the token is accepted', { 'x-gitlab-token': 's3cret' }, 's3cret', true],
    ['a GitLab push with a wrong token is refused', { 'x-gitlab-token': 'nope' }, 's3cret', false],
    ['an unsigned request is refused', {}, 's3cret', false],
    ['any request is refused when no secret is configured', { 'x-gitlab-token': '' }, undefined, false],
  ])('%s', (_name, headers, secret, ok) => {
    expect(verifyWebhook(headers, body, secret).ok).toBe(ok);
  });
});

describe('agent settings', () => {
  it('GIVEN flags, environment and baton.yaml THEN flags win over environment, which wins over baton.yaml', () => {
    const base = resolveSettings({ repo: 'https://git.example.com/ops.git', interval: '30s' }, { BATON_INTERVAL: '5m', BATON_CONCURRENCY: '8', BATON_GIT_TOKEN: 't0k' }, '/tmp');
    expect(base).toMatchObject({ intervalMs: 30_000, concurrency: 8, branch: 'main', auth: { kind: 'token', token: 't0k' } });
    const merged = withRepositorySettings(base, { agent: { interval: '10s', concurrency: 2, statusBranch: 'status', author: { name: 'Ops', email: 'ops@example.com' } } }, { interval: true, statusBranch: false });
    expect(merged).toMatchObject({ intervalMs: 30_000, concurrency: 8, statusBranch: 'status', author: { name: 'Ops', email: 'ops@example.com' } });
  });

  it.each([
    [{ repo: 'x', interval: 'soon' }, {}, 'flag --interval: expected a duration'],
    [{ repo: 'x' }, { BATON_CONCURRENCY: '0' }, '$BATON_CONCURRENCY --concurrency: expected a whole number'],
    [{}, {}, 'no repository: pass --git'],
  ])('refuses %j %j naming the source', (flags, env, message) => {
    expect(() => resolveSettings(flags, env, '/tmp')).toThrow(message);
  });
});

describe('status files', () => {
  const checkpoint: Checkpoint = {
    format: 1, instance: { namespace: 'prod', name: 'db' }, framework: 'pg', history: [], handledRequests: [],
    inventory: [{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'db', plan: 'deploy' }],
    active: {
      id: 'run-1', plan: 'deploy', reason: 'new instance', args: {}, frameworkVersion: '1.0.0', strategy: 'serial',
      state: { status: 'FATAL_ERROR', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:01:00Z', message: 'login with hunter2-pass failed', error: { code: 'X', message: 'login with hunter2-pass failed' } },
      phases: [],
    },
  };

  it('GIVEN a checkpoint whose messages quote a sensitive value WHEN the status is built THEN the value is masked and it round-trips', () => {
    const status = buildStatus({ instance: { namespace: 'prod', name: 'db' }, framework: { name: 'pg', version: '1.0.0' }, sourceCommit: 'c0ffee', observed: { instance: 'b1' }, now: '2026-01-01T00:02:00Z', checkpoint, sensitiveValues: ['hunter2-pass'] });
    const text = formatStatus(status);
    expect(text).not.toContain('hunter2-pass');
    expect(status.state).toBe('FATAL_ERROR');
    expect(parseStatus(text, 'status/prod/db.yaml')).toEqual(status);
  });

  it('GIVEN a long plan history THEN the status keeps only the recent plans', () => {
    const run = checkpoint.active!;
    const history = Array.from({ length: 20 }, (_, i) => ({ ...run, id: `run-${i}` }));
    const status = buildStatus({ instance: { namespace: 'prod', name: 'db' }, framework: { name: 'pg' }, sourceCommit: 'c', observed: { instance: 'b' }, now: 'n', checkpoint: { ...checkpoint, history } });
    expect(status.recentPlans).toHaveLength(5);
  });

  it('GIVEN a hand-broken status file THEN the error names the file and field', () => {
    expect(() => parseStatus('apiVersion: baton.dev/v1alpha1\nkind: InstanceStatus\n', 'status/prod/db.yaml')).toThrow(StatusFileError);
    expect(() => parseStatus('apiVersion: baton.dev/v1alpha1\nkind: InstanceStatus\n', 'status/prod/db.yaml')).toThrow(/status\/prod\/db.yaml: field instance/);
  });
});

describe('small Git helpers', () => {
  it('reads trailers from the last paragraph only', () => {
    const message = formatMessage('prod/db: deploy COMPLETE in 3s', 'Body: not a trailer paragraph\nbecause this line is prose', [['Baton-Instance', 'prod/db'], ['Baton-Plan', 'deploy']]);
    const trailers = parseTrailers(message);
    expect(trailers.get('Baton-Instance')).toEqual(['prod/db']);
    expect(trailers.has('Body')).toBe(false);
  });

  it.each([
    ['https://user:secret@git.example.com/ops.git', 'https://user:***@git.example.com/ops.git'],
    ['https://token@git.example.com/ops.git', 'https://***@git.example.com/ops.git'],
    ['git@github.com:org/ops.git', 'git@github.com:org/ops.git'],
  ])('redacts credentials in %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('makes local paths absolute and refuses option-like URLs', () => {
    expect(normaliseRemote('repo', '/srv')).toBe('/srv/repo');
    expect(() => normaliseRemote('--upload-pack=evil', '/srv')).toThrow(GitRemoteRefusedError);
  });

  it.each([['2h', '2 hours ago'], ['7d', '7 days ago'], ['2026-01-01', '2026-01-01']])('turns --since %s into %s', (since, git) => {
    expect(normaliseSince(since)).toBe(git);
  });
});
