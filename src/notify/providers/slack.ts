/**
 * Slack through an incoming webhook, with Slack's own client (@slack/webhook). Its retries are off:
 * the dispatcher retries every provider the same way, and reads Retry-After from the response, which
 * the client does not expose, through the fetch it is given.
 */
import type { FetchFunction } from '@slack/webhook';
import { EVENT_TITLES, instanceLabel, isSuccess, type NotifyEvent } from '../events.js';
import { DEFAULT_TIMEOUT_MS, retryAfterMs, transportMessage, type DeliveryResult } from '../http.js';
import type { Delivery } from './types.js';

export function slackMessage(event: NotifyEvent): { text: string; blocks: { type: 'section'; text: { type: 'mrkdwn'; text: string } }[] } {
  const icon = isSuccess(event.type) ? ':white_check_mark:' : ':x:';
  const title = `${icon} *${instanceLabel(event)}*: ${EVENT_TITLES[event.type]}${event.plan ? ` (${event.plan})` : ''}`;
  const lines = [title, escapeSlack(event.message), ...(event.commit ? [`commit \`${event.commit.slice(0, 12)}\``] : [])];
  return { text: `${instanceLabel(event)}: ${event.message}`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }] };
}

/** Slack's control characters in text: &, <, >. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function slackDeliveries(url: string, event: NotifyEvent, timeoutMs = DEFAULT_TIMEOUT_MS): Delivery[] {
  return [{
    what: 'message',
    send: async (): Promise<DeliveryResult> => {
      // Loaded on first use: the agent without a Slack notification never needs it.
      const { IncomingWebhook, IncomingWebhookHTTPError, IncomingWebhookRequestError } = await import('@slack/webhook');
      let wait: number | undefined;
      const watching: FetchFunction = async (input, init) => {
        const response = await fetch(input, init);
        wait = retryAfterMs(response.headers);
        return response;
      };
      const hook = new IncomingWebhook(url, { fetch: watching, timeout: timeoutMs, retryConfig: { retries: 0 } });
      try {
        const result = await hook.send(slackMessage(event));
        return { ok: true, status: 200, body: result.text ?? '' };
      } catch (err) {
        if (err instanceof IncomingWebhookHTTPError) {
          const retry = err.statusCode === 429 || err.statusCode >= 500;
          return { ok: false, retry, status: err.statusCode, ...(wait !== undefined ? { retryAfterMs: wait } : {}), message: `HTTP ${err.statusCode}: ${err.body.slice(0, 200)}` };
        }
        if (err instanceof IncomingWebhookRequestError) return { ok: false, retry: true, message: transportMessage(err.original) };
        return { ok: false, retry: true, message: transportMessage(err) };
      }
    },
  }];
}
