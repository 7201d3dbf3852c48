/** A notification target: which events it wants and how one event becomes HTTP deliveries. */
import type { NotifyEvent, NotifyEventType } from '../events.js';
import type { DeliveryResult } from '../http.js';

export interface Delivery {
  /** For logs: what this call does (`commit status`, `check run`, `message`). */
  what: string;
  send(): Promise<DeliveryResult>;
  /** Called with a final failure: a provider may turn a part off (GitHub check runs without an App). */
  onFailure?(result: Extract<DeliveryResult, { ok: false }>): void;
}

export interface Provider {
  name: string;
  type: 'webhook' | 'slack' | 'github' | 'gitlab';
  events: ReadonlySet<NotifyEventType>;
  /** Only instances of these tenants; undefined: all. */
  tenants?: ReadonlySet<string>;
  perMinute: number;
  /** Credentials of this provider: masked wherever its failures are logged. */
  secrets: string[];
  deliveries(event: NotifyEvent): Delivery[];
}
