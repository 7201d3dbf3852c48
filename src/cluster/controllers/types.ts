/**
 * The contract between the simulated cluster's process (which starts controllers) and the simulated
 * controllers (which act only through the Kubernetes API, as real controllers do).
 */
export interface SimulationTiming {
  /** Pending -> Running (container started). */
  podStartDelayMs: number;
  /** Running -> Ready. */
  readyDelayMs: number;
}

export interface ControllerOptions {
  /** The API server to talk to, as any client would. */
  server: { url: string; token?: string };
  timing: SimulationTiming;
  /** Simulated nodes (DaemonSets schedule one pod per node). */
  nodes: number;
}

export interface ControllerManager {
  stop(): Promise<void>;
}

export const DEFAULT_TIMING: SimulationTiming = { podStartDelayMs: 200, readyDelayMs: 300 };
