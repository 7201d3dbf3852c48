/** The simulated workloads: controllers and kubelets acting through the API. See docs/cluster-workloads.md. */
export type { ControllerManager, ControllerOptions, SimulationTiming } from './types.js';
export { DEFAULT_TIMING } from './types.js';
export { startControllers } from './manager.js';
export { allControllers } from './registry.js';
export type { Clock, Timer } from './runtime/clock.js';
export { realClock } from './runtime/clock.js';
export { FAILURE_MODES, SIM_FAIL, SIM_READY_DELAY, SIM_RUN, SIM_START_DELAY, type FailureMode } from './sim.js';
