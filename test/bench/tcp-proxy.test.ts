/**
 * The scale bench's TCP recording proxy (bench/_proxy.ts): bytes pass untouched and every request is
 * recorded with its method, path and answer time, whatever way the stream is cut into chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFraming, tcpRecordingProxy } from '../../bench/_proxy.js';
import { startCluster, type Cluster } from '../../src/cluster/index.js';
import { createKubeClient } from '../../src/kube/http-client.js';
import type { RecordingProxy } from '../helpers/recording-proxy.js';
import { until } from '../helpers/wait.js';

describe('HttpFraming', () => {
  const stream = [
    'PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
    'GET /b?watch=1 HTTP/1.1\r\nhost: x\r\n\r\n',
    'POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\n',
    'DELETE /d HTTP/1.1\r\ncontent-length: 0\r\n\r\n',
  ].join('');

  it.each([1, 2, 3, 7, 1000])('reads heads and bodies cut into pieces of %i bytes', (size) => {
    const heads: string[] = [];
    let ends = 0;
    const framing = new HttpFraming((head) => {
      heads.push(head.split('\r\n')[0] ?? '');
      if (/chunked/.test(head)) return { kind: 'chunked' };
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      return length > 0 ? { kind: 'length', left: length } : { kind: 'none' };
    }, () => { ends++; });
    const bytes = Buffer.from(stream, 'latin1');
    for (let i = 0; i < bytes.length; i += size) framing.feed(bytes.subarray(i, i + size));
    expect(heads).toEqual(['PUT /a HTTP/1.1', 'GET /b?watch=1 HTTP/1.1', 'POST /c HTTP/1.1', 'DELETE /d HTTP/1.1']);
    expect(ends).toBe(4);
  });
});

describe('tcpRecordingProxy in front of the simulated API server', () => {
  let cluster: Cluster;
  let proxy: RecordingProxy;
  beforeAll(async () => {
    cluster = await startCluster({ controllers: false, token: '' });
    proxy = await tcpRecordingProxy(cluster.url);
  });
  afterAll(async () => {
    await proxy.close();
    await cluster.stop();
  });

  it('passes requests, answers (errors too) and watch streams through and records each with its answer time', async () => {
    const client = await createKubeClient({ url: proxy.url });
    try {
      expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' })).toBeUndefined();
      const controller = new AbortController();
      const seen: string[] = [];
      const watching = (async () => {
        for await (const e of client.watch('v1', 'ConfigMap', 'default', { signal: controller.signal })) {
          if (e.object.metadata.name === 'a') seen.push(`${e.type} a`);
        }
      })().catch(() => undefined);
      const big = 'x'.repeat(200_000);
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { big } });
      const got = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
      expect(got?.data).toEqual({ big });
      await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { big, more: 'y' } }, { fieldManager: 't', force: true });
      await until(() => seen.length >= 2, 10_000, 'both watch events');
      controller.abort();
      await watching;
      expect(seen).toEqual(['ADDED a', 'MODIFIED a']);
      const calls = proxy.requests.map((r) => `${r.method} ${r.path.split('?')[0] ?? ''}`);
      expect(calls).toEqual(expect.arrayContaining([
        'GET /api/v1/namespaces/default/configmaps/a', 'POST /api/v1/namespaces/default/configmaps', 'PATCH /api/v1/namespaces/default/configmaps/a', 'GET /api/v1/namespaces/default/configmaps',
      ]));
      // Every answered request has its time; the watch (answered as a stream that never ended) has none.
      for (const r of proxy.requests) {
        if (r.path.includes('watch=')) expect(r.ms).toBeUndefined();
        else expect(r.ms).toBeGreaterThanOrEqual(0);
      }
      expect(proxy.writes().map((r) => r.method)).toEqual(['POST', 'PATCH']);
    } finally {
      client.close();
    }
  });
});
