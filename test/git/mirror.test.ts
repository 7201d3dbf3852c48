import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GitMirror, ObjectStore, writeCommit, writeTreeWith, GitPushRejectedError, GitTransportError, GitRemoteRefusedError } from '../../src/git/index.js';
import { gitSandbox, startGitServer, workClone, type GitSandbox, type GitServer, type WorkClone } from '../helpers/git-server.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('the agent bare clone against a real Git HTTP server with authentication', () => {
  let sandbox: GitSandbox;
  let server: GitServer;
  let alice: WorkClone;
  let first: string;

  beforeAll(async () => {
    sandbox = gitSandbox();
    server = await startGitServer({ env: sandbox.env });
    server.createBare('ops.git');
    alice = await workClone(sandbox.env, server.url('ops.git'), join(sandbox.dir, 'alice'));
    alice.write('instances/prod/redis.yaml', 'framework: redis\nversion: 1.0.0\n');
    alice.write('frameworks/redis/1.0.0/framework.yaml', 'name: redis\n');
    first = alice.commit('add redis');
    await alice.push();
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  const mirrorFor = (name: string, token = 'secret'): GitMirror =>
    new GitMirror({ dir: join(sandbox.dir, name), remote: { url: server.plainUrl('ops.git'), auth: { kind: 'token', username: 'baton', token } }, env: sandbox.env });

  it('GIVEN a token WHEN the agent fetches THEN files read at the exact commit, with oids for caching', async () => {
    const mirror = mirrorFor('agent-read');
    await mirror.init();
    expect(await mirror.fetch('main')).toBe(first);
    const tree = await new ObjectStore(mirror.dir).at(first);
    expect(await tree.readText('instances/prod/redis.yaml')).toContain('framework: redis');
    expect(await tree.list('instances')).toEqual([{ name: 'prod', type: 'dir' }]);
    expect(await tree.read('instances/prod/missing.yaml')).toBeUndefined();
    expect(await tree.id('frameworks/redis/1.0.0')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('GIVEN a wrong token WHEN the agent fetches THEN a transport error says so without leaking the token', async () => {
    const mirror = mirrorFor('agent-badauth', 'wrong-token');
    await mirror.init();
    const err = await mirror.fetch('main').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitTransportError);
    expect(String((err as Error).message)).not.toContain('wrong-token');
  });

  it('GIVEN a branch the remote lacks WHEN fetched THEN the tip is undefined, not an error', async () => {
    const mirror = mirrorFor('agent-nobranch');
    await mirror.init();
    expect(await mirror.fetch('baton-status')).toBeUndefined();
  });

  it.each([['-oProxyCommand=evil'], ['ext::sh -c evil']])('refuses the remote URL %s', (url) => {
    expect(() => new GitMirror({ dir: join(sandbox.dir, 'refused'), remote: { url, auth: { kind: 'none' } } })).toThrow(GitRemoteRefusedError);
  });

  it('GIVEN a commit written without a working tree WHEN pushed THEN others see it; a stale parent is rejected, never forced', async () => {
    const mirror = mirrorFor('agent-write');
    await mirror.init();
    const tip = await mirror.fetch('main');
    const store = new ObjectStore(mirror.dir);
    const tree = await writeTreeWith(store, await store.treeOfCommit(tip!), new Map([['status/prod/redis.yaml', enc('state: COMPLETE\n')]]));
    const statusCommit = await writeCommit(store, { tree, parents: [tip!], message: 'prod/redis: deploy COMPLETE', author: { name: 'Baton', email: 'baton@example.com' } });
    await mirror.push(statusCommit, 'main');
    await alice.pull();
    expect(alice.git('log', '-1', '--format=%s')).toBe('prod/redis: deploy COMPLETE');
    expect(alice.git('show', 'HEAD:instances/prod/redis.yaml')).toContain('redis');

    // Someone else pushes meanwhile: a commit on the old tip must be rejected.
    alice.write('instances/prod/cache.yaml', 'framework: redis\n');
    alice.commit('add cache');
    await alice.push();
    const stale = await writeCommit(store, { tree, parents: [statusCommit], message: 'again', author: { name: 'Baton', email: 'baton@example.com' } });
    await expect(mirror.push(stale, 'main')).rejects.toBeInstanceOf(GitPushRejectedError);
  });
});
