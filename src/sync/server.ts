/** The agent's HTTP endpoints: /healthz, /readyz (after the first successful poll), /metrics, /webhook. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentLog } from './agent.js';
import type { AgentMetrics } from './metrics.js';
import { verifyWebhook } from './webhook.js';

export interface AgentServerOptions {
  metrics: AgentMetrics;
  webhookSecret?: string;
  onPush: () => void;
  log: AgentLog;
  /** Called before /metrics answers (per-instance series mirror the latest status files). */
  beforeScrape?: () => void;
}

const MAX_BODY = 5 * 1024 * 1024;

export class AgentServer {
  private readonly server: Server;
  private ready = false;

  constructor(private readonly options: AgentServerOptions) {
    this.server = createServer((req, res) => {
      // Nothing a client does (a body cut off mid-way, a reset connection) may reach the process as an
      // unhandled rejection: the agent must outlive any request.
      this.handle(req)
        .catch((err: unknown) => {
          this.options.log('warn', `${req.method ?? '?'} ${(req.url ?? '/').split('?')[0] ?? ''}: ${err instanceof Error ? err.message : String(err)}`);
          return { status: 400, body: 'bad request\n' };
        })
        .then(({ status, body, type }: { status: number; body: string; type?: string }) => {
          if (res.destroyed || res.headersSent) return;
          res.writeHead(status, { 'content-type': type ?? 'text/plain; charset=utf-8' }).end(body);
        })
        .catch(() => undefined);
    });
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      else socket.destroy();
    });
  }

  markReady(): void {
    this.ready = true;
  }

  /** Listens on `host:port` (port 0 picks one) and returns the address. */
  async listen(address: string): Promise<string> {
    const colon = address.lastIndexOf(':');
    const host = colon > 0 ? address.slice(0, colon) : '127.0.0.1';
    const port = Number(colon >= 0 ? address.slice(colon + 1) : address);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, resolve);
    });
    const a = this.server.address() as AddressInfo;
    return `${a.address}:${a.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: string; type?: string }> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return { status: 200, body: 'ok\n' };
    if (req.method === 'GET' && path === '/readyz') return this.ready ? { status: 200, body: 'ready\n' } : { status: 503, body: 'first poll not done\n' };
    if (req.method === 'GET' && path === '/metrics') this.options.beforeScrape?.();
    if (req.method === 'GET' && path === '/metrics') return { status: 200, body: await this.options.metrics.registry.metrics(), type: this.options.metrics.registry.contentType };
    if (req.method === 'POST' && path === '/webhook') {
      const body = await readBody(req);
      if (body === undefined) return { status: 413, body: 'body too large\n' };
      const verdict = verifyWebhook(req.headers, body, this.options.webhookSecret);
      if (!verdict.ok) {
        this.options.log('warn', `webhook refused: ${verdict.reason}`);
        return { status: verdict.status, body: `${verdict.reason}\n` };
      }
      this.options.onPush();
      return { status: 202, body: 'poll scheduled\n' };
    }
    return { status: 404, body: 'not found\n' };
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
