/**
 * The scale bench's recording proxy between one agent and the simulated API server, at the TCP level:
 * each client connection gets one upstream connection and bytes go through untouched; the proxy only
 * reads the HTTP framing as it passes (request lines and headers, Content-Length, chunk sizes) to
 * record each request (method, path, arrival) and when its answer's last byte went back (`ms`). The
 * HTTP proxy it replaces (test/helpers/recording-proxy.ts, same interface) parsed every request and
 * answer and made a new request upstream: about a third of a millisecond of this process's CPU per
 * call, on the same cores as the agents (docs/scale-out.md).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { writesSince, writeProxyKubeconfig, type RecordedRequest, type RecordingProxy } from '../test/helpers/recording-proxy.js';

const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');

type Body = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'untilClose' };

/**
 * Reads one direction of an HTTP/1.1 connection: message heads, then bodies by Content-Length or
 * chunked framing, skipping body bytes without copying them. `onHead` gets each head and says how its
 * body is framed; `onEnd` is called when a message (head and body) is complete.
 */
export class HttpFraming {
  private head: Buffer[] = [];
  private body: Body | undefined;
  /** In a chunked body: bytes of chunk data (and its CRLF) still to skip, or -1 when a size line is due. */
  private chunkLeft = -1;
  private sizeLine = '';
  private trailers = false;

  constructor(
    private readonly onHead: (head: string) => Body,
    private readonly onEnd: () => void,
  ) {}

  feed(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.body === undefined) at = this.readHead(chunk, at);
      else at = this.readBody(chunk, at);
    }
  }

  private readHead(chunk: Buffer, from: number): number {
    // The end of the head may straddle chunks: look from up to three bytes before this chunk.
    const carry = this.head.length > 0 ? Buffer.concat(this.head) : undefined;
    const joined = carry ? Buffer.concat([carry, chunk.subarray(from)]) : chunk.subarray(from);
    const end = joined.indexOf(HEAD_END, Math.max(0, (carry?.length ?? 0) - 3));
    if (end < 0) {
      this.head = [joined];
      return chunk.length;
    }
    const text = joined.subarray(0, end).toString('latin1');
    const consumed = end + 4 - (carry?.length ?? 0);
    this.head = [];
    this.body = this.onHead(text);
    this.chunkLeft = -1;
    this.sizeLine = '';
    this.trailers = false;
    if (this.body.kind === 'none' || (this.body.kind === 'length' && this.body.left === 0)) this.finish();
    return from + consumed;
  }

  private readBody(chunk: Buffer, at: number): number {
    const body = this.body;
    if (body === undefined) return at;
    switch (body.kind) {
      case 'none':
        this.finish();
        return at;
      case 'untilClose':
        return chunk.length;
      case 'length': {
        const take = Math.min(body.left, chunk.length - at);
        body.left -= take;
        if (body.left === 0) this.finish();
        return at + take;
      }
      case 'chunked':
        return this.readChunked(chunk, at);
    }
  }

  private readChunked(chunk: Buffer, at: number): number {
    if (this.chunkLeft > 0) {
      const take = Math.min(this.chunkLeft, chunk.length - at);
      this.chunkLeft -= take;
      if (this.chunkLeft === 0) this.chunkLeft = -1;
      return at + take;
    }
    // A line: a chunk size (with extensions), or after the last chunk a trailer line (empty ends the body).
    // Up to the LF (its CR may have come at the end of the previous chunk): the line stays open until then.
    const nl = chunk.indexOf(LF, at);
    const end = nl < 0 ? chunk.length : nl;
    this.sizeLine += chunk.subarray(at, end).toString('latin1');
    if (nl < 0) return chunk.length;
    const line = this.sizeLine.replace(/\r$/, '');
    this.sizeLine = '';
    if (this.trailers) {
      if (line === '') this.finish();
      return nl + 1;
    }
    const size = parseInt(line.split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size === 0) this.trailers = true;
    else this.chunkLeft = size + 2;
    return nl + 1;
  }

  private finish(): void {
    this.body = undefined;
    this.onEnd();
  }
}

function header(head: string, name: string): string | undefined {
  const re = new RegExp(`\\r\\n${name}:[ \\t]*([^\\r]*)`, 'i');
  return re.exec(head)?.[1]?.trim();
}

function requestBody(head: string): Body {
  if (/chunked/i.test(header(head, 'transfer-encoding') ?? '')) return { kind: 'chunked' };
  const length = Number(header(head, 'content-length') ?? 0);
  return length > 0 ? { kind: 'length', left: length } : { kind: 'none' };
}

function responseBody(head: string, method: string | undefined): Body {
  const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head)?.[1] ?? 0);
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return { kind: 'none' };
  if (/chunked/i.test(header(head, 'transfer-encoding') ?? '')) return { kind: 'chunked' };
  const length = header(head, 'content-length');
  if (length !== undefined) return { kind: 'length', left: Number(length) };
  return { kind: 'untilClose' };
}

/** A recording proxy to `target` (http://host:port), as test/helpers/recording-proxy.ts's, at the TCP level. */
export async function tcpRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  if (upstream.protocol !== 'http:') throw new Error(`the TCP recording proxy speaks plain http, not ${upstream.protocol}`);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    sockets.add(client);
    sockets.add(server);
    client.setNoDelay(true);
    server.setNoDelay(true);
    // Requests sent on this connection and not yet answered, oldest first (HTTP/1.1 answers in order).
    const waiting: RecordedRequest[] = [];
    const requestSide = new HttpFraming((head) => {
      const [method = 'GET', path = '/'] = (head.split('\r\n', 1)[0] ?? '').split(' ');
      const record: RecordedRequest = { method, path, at: Date.now() };
      requests.push(record);
      waiting.push(record);
      return requestBody(head);
    }, () => undefined);
    let interim = false;
    const answerSide = new HttpFraming((head) => {
      // A 1xx answer (100 Continue) comes before the real one, for the same request.
      interim = /^HTTP\/\d\.\d 1\d\d/.test(head);
      return responseBody(head, waiting[0]?.method);
    }, () => {
      if (interim) return;
      const record = waiting.shift();
      if (record) record.ms = Date.now() - record.at;
    });
    client.on('data', (chunk: Buffer) => requestSide.feed(chunk));
    server.on('data', (chunk: Buffer) => answerSide.feed(chunk));
    client.pipe(server);
    server.pipe(client);
    const close = (): void => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('error', close);
    server.on('error', close);
    client.on('close', close);
    server.on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    writes: (since = 0) => writesSince(requests, since),
    kubeconfig: (path) => writeProxyKubeconfig(url, path),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      server.close(() => resolve());
    }),
  };
}
