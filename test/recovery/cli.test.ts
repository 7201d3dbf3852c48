/**
 * `baton pod restart|replace` as a person runs it: --direct against the simulated cluster (progress,
 * exit 0, Kubernetes Events with who asked and why), bad input exit 1 with nothing changed, usage exit 2,
 * and the default: a request committed to Git.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATON_ARGV } from '../helpers/cli.js';
import { parseRequestFile } from '../../src/sync/request-file.js';
import { dbInstance, deploy, recoveryWorld, type RecoveryWorld } from './world.js';

let world: RecoveryWorld;
beforeAll(async () => {
  world = await recoveryWorld();
  expect(await deploy(world, dbInstance('shop', 'orders'))).toMatchObject({ kind: 'ran' });
}, 30_000);
afterAll(async () => world.stop());

function baton(args: string[], cwd = process.cwd()): Promise<{ code: number; stdout: string; stderr: string }> {
  const [node, ...rest] = BATON_ARGV;
  return new Promise((resolve) => {
    execFile(node ?? process.execPath, [...rest, ...args], { cwd, env: { ...process.env, BATON_AUTHOR_NAME: 'Jane', BATON_AUTHOR_EMAIL: 'jane@example.com' }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('baton pod --direct', () => {
  it('GIVEN a pod of the instance WHEN restarted directly THEN progress is printed, exit 0, and a Kubernetes Event names who asked and why', async () => {
    const uid = (await world.pod('shop', 'orders-db-0'))?.metadata.uid;
    const r = await baton(['pod', 'restart', 'shop/orders', 'orders-db-0', '--direct', '--kubeconfig', world.kubeconfigPath, '--reason', 'leaking file handles']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plan pod-restart started (requested by Jane <jane@example.com>: leaking file handles)');
    expect(r.stdout).toMatch(/pod-restart: COMPLETE: orders-db-0: restarted on node \S+, ready/);
    expect((await world.pod('shop', 'orders-db-0'))?.metadata.uid).not.toBe(uid);
    const events = (await world.client.list('v1', 'Event', 'shop')).items.map((e) => (typeof e['message'] === 'string' ? e['message'] : ''));
    expect(events.some((m) => m.includes('pod-restart') && m.includes('requested by Jane <jane@example.com>: leaking file handles'))).toBe(true);
  }, 60_000);

  it.each([
    ['an unknown pod', ['pod', 'replace', 'shop/orders', 'orders-db-7'], /error: pod orders-db-7 does not exist in namespace shop; pods of shop\/orders: orders-db-0/],
    ['an unknown instance', ['pod', 'restart', 'shop/nope', 'orders-db-0'], /error: instance shop\/nope is not known to Baton in this cluster/],
  ])('GIVEN %s THEN exit 1 with the error, and no pod is touched', async (_what, args, message) => {
    const before = (await world.pods('shop')).map((p) => p.metadata.uid).sort();
    const r = await baton([...args, '--direct', '--kubeconfig', world.kubeconfigPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect((await world.pods('shop')).map((p) => p.metadata.uid).sort()).toEqual(before);
  }, 60_000);

  it.each([
    ['an instance without a namespace', ['pod', 'restart', 'orders', 'orders-db-0', '--direct']],
    ['a timeout that is not a duration', ['pod', 'restart', 'shop/orders', 'orders-db-0', '--direct', '--timeout', 'soon']],
    ['no pod', ['pod', 'restart', 'shop/orders']],
  ])('GIVEN %s THEN exit 2 (usage)', async (_what, args) => {
    expect((await baton(args)).code).toBe(2);
  }, 60_000);
});

describe('baton pod through Git', () => {
  it('GIVEN a working clone WHEN pod replace is asked THEN a request is committed (not pushed) naming pod, reason and who asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-pod-git-'));
    try {
      const git = (...args: string[]): Promise<string> => new Promise((resolve, reject) => execFile('git', args, { cwd: dir }, (err, out) => (err ? reject(new Error(err.message)) : resolve(out))));
      await git('init', '-q', '-b', 'main');
      await git('config', 'user.name', 'Jane');
      await git('config', 'user.email', 'jane@example.com');
      const { writeFileSync, mkdirSync } = await import('node:fs');
      mkdirSync(join(dir, 'instances/zk'), { recursive: true });
      writeFileSync(join(dir, 'instances/zk/zk.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: zookeeper\nversion: 1.0.0\n');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'zk');
      const r = await baton(['pod', 'replace', 'zk/zk', 'zk-1', '--reason', 'node lost'], dir);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^requested pod replace of zk-1 for zk\/zk \(id r-\d+-[0-9a-f]+\) in commit [0-9a-f]{12}; push it for the agent to see it\n$/);
      const file = readFileSync(join(dir, 'requests/zk/zk.yaml'), 'utf8');
      expect(parseRequestFile(file, 'requests/zk/zk.yaml')).toEqual([expect.objectContaining({ action: 'pod-replace', pod: 'zk-1', reason: 'node lost', requestedBy: 'Jane <jane@example.com>' })]);
      expect(await git('log', '-1', '--format=%B')).toMatch(/Baton-Action: pod-replace/);
      const missing = await baton(['pod', 'restart', 'zk/other', 'zk-1'], dir);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('instances/zk/other.yaml does not exist on main');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
