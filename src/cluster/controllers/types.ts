/**
 * The contract between the simulated cluster's process (which starts controllers) and the simulated
 * controllers (which act only through the Kubernetes API, as real controllers do).
 */
import type { KubeClient } from '../../kube/client.js';
import type { Clock } from './runtime/clock.js';

export interface SimulationTiming {
  /** Pending -> Running (container started). */
  podStartDelayMs: number;
  /** Running -> Ready. */
  readyDelayMs: number;
}

export interface ControllerOptions {
  /** The API server to talk to, as any client would. */
  server: {
    url: string;
    token?: string;
    /** CA of an https server (PEM or base64 PEM). Without it, https on a loopback address skips verification. */
    caData?: string;
  };
  timing: SimulationTiming;
  /** Simulated nodes (DaemonSets schedule one pod per node). */
  nodes: number;
  /** A client to use instead of connecting to `server`: the API server's in-process client (startCluster), or a test's. */
  client?: KubeClient;
  /** Time source (tests). Default: the real clock. */
  clock?: Clock;
  /** Told about reconcile failures other than conflicts (they are retried with backoff anyway). */
  onError?: (controller: string, key: string, err: unknown) => void;
}

export interface ControllerManager {
  /** Resolves once nodes exist and every informer has listed: from then on workloads progress. */
  ready(): Promise<void>;
  /**
   * Resolves once the controllers have nothing left to do: no key queued or being reconciled, none
   * due after a delay within `horizonMs` (default 5 s: pod start and ready delays, retry backoffs).
   * For tests that assert a controller changed nothing more, instead of sleeping.
   */
  settled(horizonMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_TIMING: SimulationTiming = { podStartDelayMs: 200, readyDelayMs: 300 };
