/**
 * Push webhooks that make the agent poll at once. GitHub signs the body with HMAC-SHA256
 * (`X-Hub-Signature-256: sha256=<hex>`); GitLab sends the shared secret as `X-Gitlab-Token`.
 * Comparisons are constant-time. Without a configured secret every webhook is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookVerdict = { ok: true; source: 'github' | 'gitlab' } | { ok: false; status: 401 | 403; reason: string };

export function verifyWebhook(headers: Record<string, string | string[] | undefined>, body: Buffer, secret: string | undefined): WebhookVerdict {
  if (secret === undefined || secret === '') return { ok: false, status: 403, reason: 'webhooks are disabled: set BATON_WEBHOOK_SECRET' };
  const header = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const signature = header('x-hub-signature-256');
  if (signature !== undefined) {
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return same(signature, expected) ? { ok: true, source: 'github' } : { ok: false, status: 401, reason: 'bad X-Hub-Signature-256' };
  }
  const token = header('x-gitlab-token');
  if (token !== undefined) return same(token, secret) ? { ok: true, source: 'gitlab' } : { ok: false, status: 401, reason: 'bad X-Gitlab-Token' };
  return { ok: false, status: 401, reason: 'missing X-Hub-Signature-256 or X-Gitlab-Token' };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
