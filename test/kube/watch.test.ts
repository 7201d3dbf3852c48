import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/kube/client.js';
import { KubeApiError, KubeTransportError } from '../../src/kube/errors.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { JsonLines } from '../../src/kube/watch-lines.js';

const DISCOVERY = JSON.stringify({ resources: [{ name: 'pods', kind: 'Pod', namespaced: true }] });

/** A loopback API server whose watch endpoint writes the given chunks (with pauses) and then maybe ends. */
async function watchServer(chunks: string[], end: boolean): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/api/v1') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(DISCOVERY);
      return;
    }
    if (!(req.url ?? '').includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{"resourceVersion":"1"},"items":[]}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    let i = 0;
    const next = (): void => {
      if (i < chunks.length) {
        res.write(chunks[i++]);
        setTimeout(next, 5);
      } else if (end) res.end();
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const pod = (name: string): string => JSON.stringify({ metadata: { name, namespace: 'ns' } });
const event = (type: string, name: string): string => `{"type":"${type}","object":${pod(name)}}\n`;

describe('JsonLines framing', () => {
  it.each([
    ['one event per chunk', [event('ADDED', 'a'), event('MODIFIED', 'a')], 2],
    ['an event split mid-JSON', [event('ADDED', 'a').slice(0, 10), event('ADDED', 'a').slice(10)], 1],
    ['two events in one chunk', [event('ADDED', 'a') + event('DELETED', 'a')], 2],
    ['blank keep-alive lines', ['\n', event('ADDED', 'a'), '\n\n'], 1],
  ])('GIVEN %s THEN it yields every complete event once', (_name, chunks, count) => {
    const lines = new JsonLines();
    const out = chunks.flatMap((c) => lines.push(Buffer.from(c)));
    expect([...out, ...lines.end()]).toHaveLength(count);
  });

  it('GIVEN a multi-byte character split across chunks THEN it is decoded intact', () => {
    const bytes = Buffer.from('{"type":"ADDED","object":{"metadata":{"name":"ü"}}}\n');
    const cut = bytes.indexOf(0xbc); // second byte of ü
    const lines = new JsonLines();
    const out = [...lines.push(bytes.subarray(0, cut)), ...lines.push(bytes.subarray(cut))];
    expect(out).toEqual([{ type: 'ADDED', object: { metadata: { name: 'ü' } } }]);
  });
});

describe('watch over HTTP', () => {
  let server: Awaited<ReturnType<typeof watchServer>> | undefined;
  let kube: HttpKubeClient | undefined;
  afterEach(async () => {
    kube?.close();
    await server?.close();
  });

  async function collect(stream: AsyncIterable<WatchEvent>): Promise<string[]> {
    const seen: string[] = [];
    for await (const e of stream) seen.push(`${e.type} ${e.object.metadata.name ?? ''} ${e.object.kind}`);
    return seen;
  }

  it('GIVEN events split across chunks WHEN the server ends the stream THEN every event arrives typed, with kind filled in', async () => {
    const all = event('ADDED', 'a') + event('MODIFIED', 'a') + '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}\n' + event('DELETED', 'a');
    server = await watchServer([all.slice(0, 17), all.slice(17, 80), all.slice(80)], true);
    kube = await createKubeClient({ url: server.url });
    const seen = await collect(kube.watch('v1', 'Pod', 'ns', { resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 30 }));
    expect(seen).toEqual(['ADDED a Pod', 'MODIFIED a Pod', 'BOOKMARK  Pod', 'DELETED a Pod']);
    expect(server.requests[1]).toBe('/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=30');
  });

  it('GIVEN an ERROR event with a 410 Status THEN the watch throws a KubeApiError Expired after the earlier events', async () => {
    const gone = '{"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}}\n';
    server = await watchServer([event('ADDED', 'a'), gone], false);
    kube = await createKubeClient({ url: server.url });
    const seen: string[] = [];
    const err: unknown = await (async () => {
      for await (const e of kube.watch('v1', 'Pod', 'ns', {})) seen.push(e.object.metadata.name ?? '');
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['a']);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(410);
    expect((err as KubeApiError).message).toBe('too old resource version');
  });

  it('GIVEN an open watch WHEN the signal aborts THEN the iteration ends cleanly', async () => {
    server = await watchServer([event('ADDED', 'a')], false);
    kube = await createKubeClient({ url: server.url });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const e of kube.watch('v1', 'Pod', 'ns', { signal: controller.signal })) {
      seen.push(e.object.metadata.name ?? '');
      controller.abort();
    }
    expect(seen).toEqual(['a']);
  });

  it('GIVEN the consumer breaks out of the loop THEN the stream is released', async () => {
    server = await watchServer([event('ADDED', 'a'), event('ADDED', 'b')], false);
    kube = await createKubeClient({ url: server.url });
    for await (const e of kube.watch('v1', 'Pod', 'ns', {})) {
      expect(e.object.metadata.name).toBe('a');
      break;
    }
  });

  it('GIVEN more open watches than the request socket pool WHEN a get is made THEN it is not starved', async () => {
    server = await watchServer([event('ADDED', 'a')], false);
    kube = await createKubeClient({ url: server.url });
    const controller = new AbortController();
    const open = server.requests.length;
    const watches = Array.from({ length: 70 }, async () => {
      for await (const _ of kube!.watch('v1', 'Pod', 'ns', { signal: controller.signal })) { /* held open until abort */ }
    });
    while (server.requests.length < open + 70) await new Promise((r) => setTimeout(r, 10));
    // 70 watches hold their sockets; a plain list must still get through.
    await expect(kube.list('v1', 'Pod', 'ns')).resolves.toMatchObject({ items: [], resourceVersion: '1' });
    controller.abort();
    await Promise.all(watches);
  });

  it('GIVEN a stream cut mid-event WHEN the connection resets THEN a KubeTransportError', async () => {
    const requests: string[] = [];
    const raw = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/api/v1') return void res.writeHead(200, { 'content-type': 'application/json' }).end(DISCOVERY);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(event('ADDED', 'a') + '{"type":"ADD');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    kube = await createKubeClient({ url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` });
    const err: unknown = await collect(kube.watch('v1', 'Pod', 'ns', {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    raw.closeAllConnections();
    await new Promise((r) => raw.close(r));
  });
});
