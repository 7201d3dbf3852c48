/**
 * Operators in control of plans (issue #13, docs/operations.md): pause, resume, stop, retry, restart,
 * force-complete and continue (canary strategies), through a request file in Git or directly against
 * a cluster. The one entry point for callers.
 */
export { carryOutRequests, pendingRequests, refuseBeside, type CarryOutInput, type CarryOutResult, type RefuseBesideResult } from './carry-out.js';
export { conflictsOf } from './conflicts.js';
export { canaryWaits, continueCommand, holdText, stampText, stateText, waitPoint } from './describe.js';
export { HANDLERS, PLAN_ACTIONS } from './handlers.js';
export { unrecordedControl, type ControlTransition } from './transitions.js';
export { RequestRefusedError, type ControlRequest, type HandledRequest, type HandlerContext, type RequestHandler } from './types.js';
