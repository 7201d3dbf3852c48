/** What the main thread and the lease renewer thread tell each other (plain data: it crosses threads). */
import type { UrlOptions } from '../../kube/connection.js';
import type { ClientTuning } from '../../kube/http-client.js';
import type { KubeconfigOptions } from '../../kube/kubeconfig.js';

/** The options the agent's own client was made from (the renewer makes its client with createKubeClient, like the agent's). */
export type LeaseClientOptions = (KubeconfigOptions | UrlOptions) & Omit<ClientTuning, 'sleep'>;

/** Which Lease the thread renews: a shard member's own, or the leader Lease. */
export type RenewerTask =
  | { kind: 'member'; namespace: string; shardSet: string; identity: string; configHash: string; configText: string; leaseDurationMs: number }
  | { kind: 'leader'; name: string; namespace: string; identity: string; leaseDurationMs: number };

export interface RenewerWorkerData {
  task: RenewerTask;
  client: LeaseClientOptions;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** The thread renews only while the main thread beat within this (see SharedFenceCell.beat). */
  livenessMs: number;
  /** The fence's shared state (SharedFenceCell). */
  fence: SharedArrayBuffer;
}

export type ToRenewer =
  /** Member: renew now (publishing `view` when given); answered with `reply`. */
  | { type: 'renew'; id: number; view?: string[] }
  /** Leader: try to acquire every retry period; answered with `acquired` (or nothing, when halted first), then renews. */
  | { type: 'acquire' }
  /**
   * Renew every retry period (the heartbeat permitting) until halted or lost. The thread starts doing so
   * by itself once the Lease is held (a member's first renewal, a leader's acquisition); this restarts it after a halt.
   */
  | { type: 'keep' }
  /** Stop acquiring or renewing; answered with `halted`. */
  | { type: 'halt' }
  /** Halt, give the Lease up when `release`, close the client; answered with `reply`, then the thread ends. */
  | { type: 'stop'; id: number; release: boolean };

export interface WireError { message: string; code?: string; status?: number }

export type FromRenewer =
  | { type: 'reply'; id: number; error?: WireError }
  | { type: 'acquired' }
  | { type: 'halted' }
  | { type: 'lost'; why: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> };
