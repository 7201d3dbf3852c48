/**
 * Which handler carries out each action. One table: a new action (pod-restart, pod-replace...) is a
 * row here, plus its entry in REQUEST_ACTIONS / REQUEST_FIELDS (src/render/schemas.ts).
 * `trigger` is not here: plan selection runs triggered plans (src/plans/selection.ts).
 */
import type { RequestAction } from '../render/index.js';
import { continueRun, forceComplete, pause, restart, resume, retry, stop } from './plan-actions.js';
import type { RequestHandler } from './types.js';

export const HANDLERS: Partial<Record<RequestAction, RequestHandler>> = {
  pause: { handle: pause },
  resume: { handle: resume },
  stop: { handle: stop },
  retry: { handle: retry },
  restart: { handle: restart },
  'force-complete': { handle: forceComplete },
  continue: { handle: continueRun },
};

/** Actions that act on a plan (two of them on one plan in one batch conflict, see conflicts.ts). */
export const PLAN_ACTIONS: ReadonlySet<string> = new Set(['pause', 'resume', 'stop', 'retry', 'restart', 'force-complete', 'continue']);
