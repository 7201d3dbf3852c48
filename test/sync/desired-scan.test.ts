import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ObjectStore } from '../../src/git/tree.js';
import { DesiredScan, PARSE_CACHE_SLACK, scanDesired } from '../../src/sync/scan.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function repo(): { put: (path: string, text: string) => void; commit: () => string; store: ObjectStore } {
  const work = mkdtempSync(join(tmpdir(), 'baton-scan-'));
  dirs.push(work);
  const git = (...args: string[]): string => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'gc.auto=0', ...args], { encoding: 'utf8' }).trim();
  git('init', '--quiet');
  return {
    put: (path, text) => { mkdirSync(dirname(join(work, path)), { recursive: true }); writeFileSync(join(work, path), text); },
    commit: () => { git('add', '--all'); git('commit', '--quiet', '--allow-empty', '-m', 'c'); return git('rev-parse', 'HEAD'); },
    store: new ObjectStore(join(work, '.git')),
  };
}

const instance = (values = ''): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: small\nversion: 1.0.0\n${values}`;

describe('scanning the desired state of status commits', () => {
  it('GIVEN a scanned commit WHEN a commit changes only status/ THEN the same desired state comes back without walking every instance file again', async () => {
    const r = repo();
    r.put('frameworks/small/1.0.0/framework.yaml', 'name: small\n');
    for (let i = 0; i < 40; i++) r.put(`instances/ns-${i % 4}/app-${i}.yaml`, instance());
    const first = r.commit();
    const scan = new DesiredScan(new Map());
    const before = await scan.at(await r.store.at(first));
    r.put('status/ns-0/app-0.yaml', 'phase: COMPLETE\n');
    const statusOnly = r.commit();
    const lookups = vi.spyOn(r.store, 'entryAt');
    const after = await scan.at(await r.store.at(statusOnly));
    // The root's entries other than status/ (frameworks, instances), not 40 instances' files, framework and request paths.
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(4);
    expect(after).toEqual(before);
    expect(after).toEqual(await scanDesired(await r.store.at(statusOnly), new Map()));
    // Copies: changing one (the agent adds cluster values in place) does not change the memo.
    after.get('ns-0/app-0')!.fingerprint = { instance: 'changed' };
    expect((await scan.at(await r.store.at(statusOnly))).get('ns-0/app-0')?.fingerprint.instance).not.toBe('changed');
  });

  it('GIVEN a scanned commit WHEN an instance file, a request or a values file elsewhere changes THEN the scan sees it', async () => {
    const r = repo();
    r.put('frameworks/small/1.0.0/framework.yaml', 'name: small\n');
    r.put('instances/prod/a.yaml', instance('valuesFiles: [values/a.yaml]\n'));
    r.put('values/a.yaml', 'X: 1\n');
    const scan = new DesiredScan(new Map());
    const first = await scan.at(await r.store.at(r.commit()));
    r.put('values/a.yaml', 'X: 2\n');
    const values = await scan.at(await r.store.at(r.commit()));
    expect(values.get('prod/a')?.fingerprint.values).not.toBe(first.get('prod/a')?.fingerprint.values);
    r.put('requests/prod/a.yaml', 'plan: backup\n');
    const requested = await scan.at(await r.store.at(r.commit()));
    expect(requested.get('prod/a')?.fingerprint.request).toBeDefined();
    r.put('instances/prod/b.yaml', instance());
    expect([...(await scan.at(await r.store.at(r.commit()))).keys()]).toEqual(['prod/a', 'prod/b']);
  });

  it('GIVEN an instance whose values file is under status/ WHEN only status/ changes THEN it is scanned again', async () => {
    const r = repo();
    r.put('frameworks/small/1.0.0/framework.yaml', 'name: small\n');
    r.put('instances/prod/a.yaml', instance('valuesFiles: [status/shared.yaml]\n'));
    r.put('status/shared.yaml', 'X: 1\n');
    const scan = new DesiredScan(new Map());
    const first = await scan.at(await r.store.at(r.commit()));
    r.put('status/shared.yaml', 'X: 2\n');
    const second = await scan.at(await r.store.at(r.commit()));
    expect(second.get('prod/a')?.fingerprint.values).not.toBe(first.get('prod/a')?.fingerprint.values);
  });
});

describe('the parse cache of instance files', () => {
  it('GIVEN instance files edited in many commits WHEN each is scanned THEN the cache keeps the parses of the current files, not of every version ever seen (issue #20: it grew with history)', async () => {
    const r = repo();
    r.put('frameworks/small/1.0.0/framework.yaml', 'name: small\n');
    const cache = new Map();
    const scan = new DesiredScan(cache);
    const edits = 14;
    let last = new Map<string, unknown>();
    for (let i = 0; i < edits; i++) {
      r.put('instances/prod/a.yaml', instance(`params:\n  N: "${i}"\n`));
      r.put('instances/prod/b.yaml', instance(`params:\n  M: "${i}"\n`));
      last = await scan.at(await r.store.at(r.commit()));
    }
    // 28 versions of instance files were parsed; the cache holds at most twice the current ones plus its slack.
    expect(cache.size).toBeLessThanOrEqual(2 * 2 + PARSE_CACHE_SLACK);
    expect(2 * edits).toBeGreaterThan(2 * 2 + PARSE_CACHE_SLACK);
    // The current files' parses are kept (a poll that finds them unchanged parses nothing).
    for (const d of last.values()) expect(cache.has((d as { fingerprint: { instance: string } }).fingerprint.instance)).toBe(true);
  });
});

describe('a shard member scanning its share (issue #20)', () => {
  it('GIVEN 40 instances and a scope keeping 10 WHEN scanned THEN only those 10 files are read and parsed and kept, every instance is named, and a new scope version scans again', async () => {
    const r = repo();
    r.put('frameworks/small/1.0.0/framework.yaml', 'name: small\n');
    for (let i = 0; i < 40; i++) r.put(`instances/ns-${i % 4}/app-${i}.yaml`, instance(`params:\n  N: "${i}"\n`));
    const tree = await r.store.at(r.commit());
    const cache = new Map();
    const scan = new DesiredScan(cache);
    const mine = new Set(Array.from({ length: 10 }, (_, i) => `ns-${(i * 4) % 4}/app-${i * 4}`));
    const reads = vi.spyOn(tree, 'read');
    const desired = await scan.at(tree, undefined, { version: 1, keeps: (id) => mine.has(id) });
    expect([...desired.keys()].sort()).toEqual([...mine].sort());
    // Before: every instance file was read and parsed, and its parse and desired state kept for the agent's lifetime.
    const instanceReads = reads.mock.calls.map(([p]) => p).filter((p) => p.startsWith('instances/'));
    expect(instanceReads.length).toBe(10);
    expect(cache.size).toBe(10);
    expect(scan.names.size).toBe(40);
    // The same as scanning everything and filtering.
    const all = await scanDesired(tree, new Map());
    for (const id of mine) expect(desired.get(id)).toEqual(all.get(id));
    // The share grows (a member left): the scope's new version scans again and keeps the new instances.
    mine.add('ns-1/app-1');
    expect((await scan.at(tree, undefined, { version: 1, keeps: (id) => mine.has(id) })).has('ns-1/app-1')).toBe(false);
    expect((await scan.at(tree, undefined, { version: 2, keeps: (id) => mine.has(id) })).has('ns-1/app-1')).toBe(true);
  });
});
