import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { GitMirror } from '../../src/git/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { MemoryCheckpointStore } from '../../src/plans/checkpoint.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { Renderer } from '../../src/render/index.js';
import { Agent } from '../../src/sync/agent.js';
import { readGitStatus } from '../../src/sync/read-status.js';
import { gitSandbox, git, workClone, type GitSandbox } from '../helpers/git-server.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { instance, webFramework } from './fixtures.js';
import { formatRequest } from '../../src/sync/request-file.js';

describe('status on a separate branch', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let client: HttpKubeClient;
  let renderer: Renderer;

  beforeAll(async () => {
    sandbox = gitSandbox();
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
    renderer = new Renderer();
  });
  afterAll(async () => {
    await renderer.close();
    client.close();
    await cluster.stop();
    sandbox.cleanup();
  });

  it('GIVEN --status-branch WHEN plans run THEN the watched branch gets no agent commit and readGitStatus finds the status there', async () => {
    const origin = join(sandbox.dir, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
    for (const [path, text] of Object.entries(webFramework())) user.write(path, text);
    user.write('instances/ops/web.yaml', instance());
    const mainTip = user.commit('web');
    await user.push();
    const mirror = new GitMirror({ dir: join(sandbox.dir, 'agent'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env });
    const agent = new Agent({ mirror, branch: 'main', statusBranch: 'baton-status', client, checkpoints: new MemoryCheckpointStore(), hooks: defaultHooks(), renderer, author: { name: 'Baton', email: 'b@example.com' }, coalesceMs: 10 });
    await agent.start();
    expect((await agent.pass()).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
    expect((await agent.pass()).reports).toEqual([]);
    await agent.stop();

    expect(git(sandbox.env, origin, 'rev-parse', 'refs/heads/main')).toBe(mainTip);
    const found = await readGitStatus({ repo: origin, branch: 'main', statusBranch: 'baton-status', env: sandbox.env }, { namespace: 'ops', name: 'web' });
    expect(found).toMatchObject({ found: true, status: { state: 'COMPLETE', sourceCommit: mainTip } });
    const missing = await readGitStatus({ repo: origin, branch: 'main', env: sandbox.env }, { namespace: 'ops', name: 'web' });
    expect(missing).toMatchObject({ found: false, reason: expect.stringContaining('no status/ops/web.yaml on main') });
  });

  it('GIVEN one commit with a value change and a request WHEN polled with no new commit THEN the request runs on the next poll, then nothing', async () => {
    const origin = join(sandbox.dir, 'origin-request.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user-request'));
    for (const [path, text] of Object.entries(webFramework())) user.write(path, text);
    user.write('instances/ops/web.yaml', instance({ VALUE: 'a' }));
    user.commit('web');
    await user.push();
    const mirror = new GitMirror({ dir: join(sandbox.dir, 'agent-request'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env });
    const agent = new Agent({ mirror, branch: 'main', statusBranch: 'baton-status', client, checkpoints: new MemoryCheckpointStore(), hooks: defaultHooks(), renderer, author: { name: 'Baton', email: 'b@example.com' }, coalesceMs: 10 });
    await agent.start();
    expect((await agent.pass()).reports.map((r) => r.outcome.kind)).toEqual(['complete']);

    user.write('instances/ops/web.yaml', instance({ VALUE: 'b' }));
    user.write('requests/ops/web.yaml', formatRequest({ id: 'r-together', plan: 'backup', args: { LABEL: 'together' }, requestedAt: new Date().toISOString() }));
    user.commit('value b and a backup request');
    await user.push();
    expect((await agent.pass()).reports.map((r) => [r.reason, r.outcome.kind])).toEqual([[expect.stringContaining('instance file changed'), 'complete']]);
    // No new commit on main (status goes elsewhere), yet the held-back request runs now.
    expect((await agent.pass()).reports.map((r) => [r.reason, r.outcome])).toEqual([['plan requested', { kind: 'complete', plan: 'backup' }]]);
    expect((await agent.pass()).reports).toEqual([]);
    await agent.stop();
  });
});
