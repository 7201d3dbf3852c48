import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PUSH_PACK_CONFIG } from '../../src/git/mirror.js';
import { GitMirror, ObjectStore, writeCommit, writeTreeWith, GitObjectError, GitPushRejectedError, GitTransportError, GitRemoteRefusedError } from '../../src/git/index.js';
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

  it('GIVEN a nested ref WHEN set, moved and deleted THEN the loose ref file holds exactly the id, no lock is left, and git agrees', async () => {
    const mirror = mirrorFor('agent-refs');
    await mirror.init();
    const tip = (await mirror.fetch('main'))!;
    const store = new ObjectStore(mirror.dir);
    const next = await writeCommit(store, { tree: await store.treeOfCommit(tip), parents: [tip], message: 'next', author: { name: 'Baton', email: 'baton@example.com' } });
    const ref = 'refs/baton/pending/release/1.0';
    const file = join(mirror.dir, ref);

    await mirror.setRef(ref, tip);
    expect(readFileSync(file, 'utf8')).toBe(`${tip}\n`);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await mirror.read(['rev-parse', '--verify', ref])).trim()).toBe(tip);

    // A lock left behind by a crash mid-write does not block the next write.
    writeFileSync(`${file}.lock`, '');
    await mirror.setRef(ref, next);
    expect(readFileSync(file, 'utf8')).toBe(`${next}\n`);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await mirror.read(['rev-parse', '--verify', ref])).trim()).toBe(next);
    expect(await mirror.revParse(ref)).toBe(next);

    await mirror.setRef(ref, undefined);
    expect(existsSync(file)).toBe(false);
    expect(await mirror.revParse(ref)).toBeUndefined();
    expect((await mirror.read(['for-each-ref', ref])).trim()).toBe('');
  });

  it('GIVEN a ref only in packed-refs WHEN set and then deleted THEN the loose ref wins, and deleting removes it from packed-refs too', async () => {
    const mirror = mirrorFor('agent-packed');
    await mirror.init();
    const tip = (await mirror.fetch('main'))!;
    const store = new ObjectStore(mirror.dir);
    const next = await writeCommit(store, { tree: await store.treeOfCommit(tip), parents: [tip], message: 'packed', author: { name: 'Baton', email: 'baton@example.com' } });
    const ref = 'refs/baton/pending/main';
    await mirror.setRef(ref, tip);
    await mirror.read(['pack-refs', '--all']);
    expect(existsSync(join(mirror.dir, ref))).toBe(false);
    await mirror.setRef(ref, next);
    expect((await mirror.read(['rev-parse', '--verify', ref])).trim()).toBe(next);
    await mirror.setRef(ref, undefined);
    expect(await mirror.revParse(ref)).toBeUndefined();
    expect(readFileSync(join(mirror.dir, 'packed-refs'), 'utf8')).not.toContain(ref);
  });

  it.each([['refs/../../escape'], ['refs/heads/x.lock'], ['refs/heads/a..b'], ['heads/main'], ['refs/heads/.hidden']])('GIVEN the ref name %s WHEN set THEN it is refused and nothing is written', async (ref) => {
    const mirror = mirrorFor('agent-badref');
    await mirror.init();
    await expect(mirror.setRef(ref, first)).rejects.toBeInstanceOf(GitObjectError);
    expect(existsSync(join(mirror.dir, ref))).toBe(false);
  });

  it('GIVEN a ref lock left by a killed process WHEN the mirror starts again THEN an old lock is removed and the ref can move; a fresh lock is left alone', async () => {
    const mirror = mirrorFor('agent-locks');
    await mirror.init();
    await mirror.fetch('main');
    const stale = join(mirror.dir, 'refs', 'remotes', 'origin', 'main.lock');
    const fresh = join(mirror.dir, 'refs', 'baton', 'other.lock');
    mkdirSync(dirname(fresh), { recursive: true });
    writeFileSync(stale, '');
    writeFileSync(fresh, '');
    const old = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(stale, old, old);
    await mirrorFor('agent-locks').init();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(await mirror.fetch('main')).toBe(first);
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

  it('GIVEN pack settings for a push WHEN pushed THEN the push runs with them (a bad value fails it); with the status pushes\' settings it goes through', async () => {
    const mirror = mirrorFor('agent-pack-config');
    await mirror.init();
    const tip = await mirror.fetch('main');
    const store = new ObjectStore(mirror.dir);
    const tree = await writeTreeWith(store, await store.treeOfCommit(tip!), new Map([['status/prod/packed.yaml', enc('state: COMPLETE\n')]]));
    const commit = await writeCommit(store, { tree, parents: [tip!], message: 'prod/packed: deploy COMPLETE', author: { name: 'Baton', email: 'baton@example.com' } });
    // The settings reach the pack-objects that builds the push's pack: git refuses a value it cannot read.
    await expect(mirror.push(commit, 'main', ['pack.window=many'])).rejects.toThrow(/pack\.window/);
    await mirror.push(commit, 'main', PUSH_PACK_CONFIG);
    await alice.pull();
    expect(alice.git('show', 'HEAD:status/prod/packed.yaml')).toBe('state: COMPLETE');
  });
});
