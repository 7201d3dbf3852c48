/**
 * A generic webhook: POST of the event as JSON, signed so the receiver can check it came from Baton
 * and is fresh: `X-Baton-Signature-256: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with the
 * shared secret, `X-Baton-Timestamp` (Unix seconds), `X-Baton-Event`, `X-Baton-Delivery` (a unique id,
 * the same for every retry of one event, so receivers can drop duplicates).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { NotifyEvent } from '../events.js';
import { sendHttp } from '../http.js';
import type { Delivery } from './types.js';

export interface WebhookTarget {
  url: string;
  secret: string;
  timeoutMs?: number;
}

export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function webhookBody(event: NotifyEvent): string {
  return JSON.stringify({ apiVersion: 'baton.dev/v1alpha1', kind: 'Notification', ...event });
}

export function webhookDeliveries(target: WebhookTarget, event: NotifyEvent, now: () => number = Date.now): Delivery[] {
  const body = webhookBody(event);
  const id = randomUUID();
  return [{
    what: 'webhook',
    send: () => {
      // Signed at each attempt: the timestamp says when this attempt was made.
      const timestamp = String(Math.floor(now() / 1000));
      return sendHttp({
        method: 'POST',
        url: target.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'baton',
          'x-baton-event': event.type,
          'x-baton-delivery': id,
          'x-baton-timestamp': timestamp,
          'x-baton-signature-256': signWebhook(target.secret, timestamp, body),
        },
        body,
      }, target.timeoutMs);
    },
  }];
}
