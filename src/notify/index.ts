/**
 * Notifications: plan results reported to a signed webhook, Slack, GitHub or GitLab, configured in
 * baton.yaml `notifications`. The agent hands every instance outcome to `Notifier.onOutcome`; the
 * dispatcher delivers in the background with retries, rate limits and redaction. `baton preview`
 * posts its pull-request comment through `postPreviewComment`.
 */
import type { NotificationDecl } from '../render/schemas.js';
import { buildProviders, type CredentialSource } from './config.js';
import { Dispatcher, type DispatcherOptions, type NotifyLog } from './dispatcher.js';
import { fromOutcome, type NotifyEvent, type OutcomeLike } from './events.js';

export { Dispatcher, DEFAULT_RETRY, type NotifyLog, type RetryPolicy } from './dispatcher.js';
export { buildProvider, buildProviders, resolveCredential, NotifyConfigError, type CredentialSource } from './config.js';
export { fromOutcome, type NotifyEvent, type NotifyEventType } from './events.js';
export { signWebhook } from './providers/webhook.js';
export { postPreviewComment, type PreviewCommentTarget, PREVIEW_MARKER } from './pr-comment.js';

export interface OutcomeReport {
  instance: { namespace: string; name: string };
  commit: string | undefined;
  outcome: OutcomeLike;
  at: string;
}

export class Notifier {
  private constructor(readonly dispatcher: Dispatcher, private readonly tenantOf: (i: OutcomeReport['instance']) => string | undefined) {}

  static async create(decls: readonly NotificationDecl[], source: CredentialSource, options: DispatcherOptions & { log: NotifyLog; tenantOf?: (i: OutcomeReport['instance']) => string | undefined }): Promise<Notifier> {
    const providers = await buildProviders(decls, source, options.log);
    return new Notifier(new Dispatcher(providers, options), options.tenantOf ?? (() => undefined));
  }

  /** The agent's listener: one instance's outcome. Outcome messages reach it already masked. */
  readonly onOutcome = (report: OutcomeReport): void => {
    const event = fromOutcome(report.outcome, report.instance, report.commit, report.at);
    if (event) this.notify(event);
  };

  notify(event: NotifyEvent, sensitiveValues: readonly string[] = []): void {
    const tenant = event.tenant ?? this.tenantOf(event.instance);
    this.dispatcher.notify(tenant !== undefined ? { ...event, tenant } : event, sensitiveValues);
  }

  drain(timeoutMs?: number): Promise<boolean> {
    return this.dispatcher.drain(timeoutMs);
  }
}
