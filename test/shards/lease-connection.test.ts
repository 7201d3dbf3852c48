/**
 * A member's Lease goes over sockets of its own: with every socket of the agent's shared pool taken by
 * work that waits on the API server, a renewal still goes out at once (it queued behind the work, and
 * members lost their Lease on a loaded machine).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_SOCKETS } from '../../src/kube/connection.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { shardMemberFor } from '../../src/shards/run-member.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { until } from '../helpers/wait.js';

/** Forwards to the cluster, but holds every request for namespace `held` until released. */
async function holdingProxy(target: string): Promise<{ url: string; held: ServerResponse[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const held: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').includes('/namespaces/held/')) { held.push(res); return; }
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('the member lease connection', () => {
  let cluster: TestCluster;
  let proxy: Awaited<ReturnType<typeof holdingProxy>>;
  let client: HttpKubeClient;

  beforeAll(async () => {
    cluster = await startTestCluster();
    proxy = await holdingProxy(cluster.url);
    client = await createKubeClient({ url: proxy.url });
  });
  afterAll(async () => {
    client.close();
    await proxy.close();
    await cluster.stop();
  });

  it('GIVEN every socket of the shared pool waiting on the API server WHEN a shard member joins and renews THEN its lease requests go out on their own sockets', async () => {
    // Discovery first, so that the held requests are the ConfigMap reads themselves.
    await client.resourceFor('v1', 'ConfigMap');
    const work = Array.from({ length: REQUEST_SOCKETS }, (_, i) => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'held', name: `c-${i}` }).catch(() => undefined));
    await until(() => proxy.held.length === REQUEST_SOCKETS, 30_000, 'every shared socket held');
    let sharedAnswered = false;
    const shared = client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' }).finally(() => { sharedAnswered = true; });
    const member = shardMemberFor({ shardSet: 'pool', repo: 'https://git.example/ops.git', branch: 'main', lease: { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 } }, client, () => undefined);
    await member.join();
    await member.lease.renew();
    expect(member.fence.valid).toBe(true);
    // The shared pool was full all along: a request of the agent's own still waits for a socket.
    expect(sharedAnswered).toBe(false);
    expect(proxy.held.length).toBe(REQUEST_SOCKETS);
    for (const res of proxy.held.splice(0)) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"kind":"Status","status":"Failure","reason":"NotFound","code":404}'); }
    await Promise.all(work);
    await shared;
    await member.lease.release();
  });
});
