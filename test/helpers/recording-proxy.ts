/**
 * An HTTP proxy in front of the simulated API server that records every request one client makes,
 * so a test can tell which of several agents wrote what (the API server cannot: they share one
 * identity). Streams (watches) are piped through as they come.
 */
import { createServer, request, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { kubeconfigYaml } from '../../src/cluster/server/kubeconfig.js';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** Date.now() when the request arrived. */
  at: number;
  /** Milliseconds until the answer was sent on (undefined while it runs, or when it never was). */
  ms?: number;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  /** Requests that change something (anything but GET), from `since` on. */
  writes(since?: number): RecordedRequest[];
  /** Writes a kubeconfig pointing at the proxy to `path`. */
  kubeconfig(path: string): string;
  close(): Promise<void>;
}


/** The writes (every method but GET) recorded at or after `since`. */
export function writesSince(requests: readonly RecordedRequest[], since: number): RecordedRequest[] {
  return requests.filter((r) => r.method !== 'GET' && r.at >= since);
}

/** Writes a kubeconfig whose one context talks to the proxy at `url`; returns `path`. */
export function writeProxyKubeconfig(url: string, path: string): string {
  writeFileSync(path, kubeconfigYaml({ url, name: 'proxy' }));
  return path;
}
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const record: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', at: Date.now() };
    requests.push(record);
    res.on('finish', () => { record.ms = Date.now() - record.at; });
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(out);
    res.on('close', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    writes: (since = 0) => writesSince(requests, since),
    kubeconfig: (path) => writeProxyKubeconfig(url, path),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
