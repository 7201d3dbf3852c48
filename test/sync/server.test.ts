/**
 * The agent's HTTP endpoints over real HTTP: health, readiness, metrics, webhooks (GitHub HMAC, GitLab
 * token), and clients that misbehave (a body cut off mid-way, garbage instead of HTTP) without the
 * agent going down.
 */
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentMetrics } from '../../src/sync/metrics.js';
import { AgentServer } from '../../src/sync/server.js';

const SECRET = 'webhook-secret';

describe('the agent HTTP server', () => {
  let server: AgentServer;
  let base: string;
  let port: number;
  let pushes = 0;
  const logs: string[] = [];
  const metrics = new AgentMetrics();

  beforeAll(async () => {
    server = new AgentServer({ metrics, webhookSecret: SECRET, onPush: () => void pushes++, log: (level, msg) => logs.push(`${level} ${msg}`) });
    const address = await server.listen('127.0.0.1:0');
    port = Number(address.split(':').pop());
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => server.close());

  it('GIVEN a running agent WHEN probed THEN /healthz is 200, /readyz is 503 until the first poll and 200 after', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    server.markReady();
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('GIVEN plans that finished WHEN /metrics is scraped THEN Prometheus text carries them', async () => {
    metrics.plans.inc({ result: 'complete' });
    const res = await fetch(`${base}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('baton_plans_total{result="complete"} 1');
  });

  it.each([
    ['a GitHub push signed with the secret', (body: string) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` }), 202],
    ['a GitHub push with a wrong signature', () => ({ 'x-hub-signature-256': 'sha256=00' }), 401],
    ['a GitLab push with the token', () => ({ 'x-gitlab-token': SECRET }), 202],
    ['a GitLab push with a wrong token', () => ({ 'x-gitlab-token': 'guess' }), 401],
    ['a push with no signature at all', () => ({}), 401],
  ])('GIVEN %s WHEN posted to /webhook THEN it answers %i and polls only when verified', async (_name, headers, status) => {
    const before = pushes;
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const res = await fetch(`${base}/webhook`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers(body) } });
    expect(res.status).toBe(status);
    expect(pushes - before).toBe(status === 202 ? 1 : 0);
  });

  it('GIVEN a client that cuts its body off mid-way WHEN it posts to /webhook THEN the agent keeps serving', async () => {
    // Cut off once the partial request has been written; wait until the socket is closed, not a fixed time.
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ref":', () => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('GIVEN garbage instead of HTTP WHEN sent THEN the connection gets a 400 and the agent keeps serving', async () => {
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write('\x00\x01 not http at all\r\n\r\n'));
      socket.on('data', (d) => { text += d.toString(); });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(answer).toContain('400');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
