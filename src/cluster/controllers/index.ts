// Placeholder until the simulated controllers land (issue 4): starts nothing.
import type { ControllerManager, ControllerOptions } from './types.js';

export type { ControllerManager, ControllerOptions, SimulationTiming } from './types.js';
export { DEFAULT_TIMING } from './types.js';

export function startControllers(_options: ControllerOptions): ControllerManager {
  return { stop: async () => {} };
}
