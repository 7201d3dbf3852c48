/** Contract: the data directory keeps everything across a clean stop and all but a torn last write across a crash. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiError, configMap, newStore, types } from './fixtures.js';

const dirs: string[] = [];
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'baton-store-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('persistence', () => {
  it('GIVEN writes and a clean close WHEN reopened THEN objects, CRD types and the resourceVersion counter survive', async () => {
    const dir = dataDir();
    const first = newStore({ dataDir: dir });
    const t = types(first);
    first.create(t.cm, 'default', configMap('kept', { a: '1' }));
    first.create(t.cm, 'default', configMap('gone'));
    first.delete(t.cm, 'default', 'gone');
    first.create(t.crd, undefined, {
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    const rv = first.resourceVersion();
    await first.close();

    const second = newStore({ dataDir: dir });
    expect(second.get(t.cm, 'default', 'kept').data).toEqual({ a: '1' });
    expect(apiError(() => second.get(t.cm, 'default', 'gone')).httpCode).toBe(404);
    expect(second.registry.lookup('example.com', 'v1', 'widgets')).toBeDefined();
    expect(second.resourceVersion()).toBe(rv);
    const next = second.create(t.cm, 'default', configMap('after'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    // Watches cannot resume across a restart: the event window starts empty.
    expect(apiError(() => second.watch(t.cm, 'default', { resourceVersion: '2' }, () => {})).httpCode).toBe(410);
    await second.close();
  });

  it('GIVEN a crash (no close) with a torn final journal line WHEN reopened THEN every complete write survives', async () => {
    const dir = dataDir();
    const first = newStore({ dataDir: dir });
    const t = types(first);
    first.create(t.cm, 'default', configMap('a'));
    first.create(t.cm, 'default', configMap('b'));
    const lines = readFileSync(join(dir, 'journal.ndjson'), 'utf8').trim().split('\n');
    expect(lines.slice(-2).map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name)).toEqual(['a', 'b']);
    appendFileSync(join(dir, 'journal.ndjson'), '{"rv":99,"key":"/configmaps","type":"ADD');
    const second = newStore({ dataDir: dir });
    expect(second.list(t.cm, 'default').items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'kube-root-ca.crt']);
    await second.close();
    // `first` plays the crashed process: it is never closed (closing would compact its state over the directory).
  });

  it('without a data directory nothing touches the disk and close resolves', async () => {
    const store = newStore();
    store.create(types(store).cm, 'default', configMap('a'));
    await expect(store.close()).resolves.toBeUndefined();
  });
});
