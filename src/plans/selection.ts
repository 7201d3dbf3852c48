/**
 * Choosing the plan: a pure function of the previous applied state (from the checkpoint) and the
 * desired state (from the instance file and its framework). KUDO's rules, plus one-shot requests.
 * The rules, in the order they are checked, are tabled in docs/engine.md.
 */
import { compareSemver } from './semver.js';
import { changedKeys, storeValues, type StoredValues } from './values.js';

export interface ParamSpec {
  name: string;
  /** Plan a change of this value runs; absent means `update` if defined, else `deploy`. */
  trigger?: string;
  immutable?: boolean;
  sensitive?: boolean;
}

/** A manual plan request (a commit made by `baton plan trigger`, or `baton apply --plan`). */
export interface PlanRequest {
  id: string;
  plan: string;
  args: Record<string, string>;
  /**
   * `baton apply --plan`: the developer asked for this plan now, so it runs in place of whatever a
   * change would select (refusals still apply). Requests from Git commits wait behind changes.
   */
  explicit?: boolean;
}

export interface DesiredState {
  frameworkVersion: string;
  /** Hash of the framework version's files, to notice a published version being edited. */
  frameworkHash: string;
  /** Resolved parameter values (defaults applied). */
  values: Readonly<Record<string, unknown>>;
  params: readonly ParamSpec[];
  /** Names of the plans the desired framework version defines. */
  plans: readonly string[];
  request?: PlanRequest;
  /** The instance file was removed. */
  removed?: boolean;
}

export interface PreviousState {
  frameworkVersion: string;
  frameworkHash: string;
  values: StoredValues;
  handledRequests: readonly string[];
}

export type Selection =
  | {
      kind: 'run';
      plan: string;
      reason: string;
      args: Record<string, string>;
      warnings: string[];
      requestId?: string;
      /**
       * The plan runs only because it was explicitly requested, not because the change rules chose
       * it: the desired state must not be recorded as applied, or the plan the change needs (deploy
       * of a new instance, upgrade, a value's trigger) would never run.
       */
      explicitOnly?: true;
      /**
       * The plan the change rules chose for the desired state: its run records the desired state as
       * its target at start and as applied when it completes. Requested and scheduled plans (backup,
       * restore, custom plans) run against the desired state but never record it.
       */
      changeDriven?: true;
    }
  | { kind: 'remove'; cleanupPlan: string | undefined; reason: string }
  | { kind: 'refuse'; code: RefusalCode; message: string; details: Record<string, unknown> }
  | { kind: 'nothing'; reason: string };

export type RefusalCode = 'PLAN_CONFLICT' | 'IMMUTABLE_PARAM' | 'VERSION_DOWNGRADE' | 'PLAN_UNKNOWN';

/** Stored form of the desired values (sensitive ones hashed), as the checkpoint records them. */
export function desiredStoredValues(desired: DesiredState): StoredValues {
  const sensitive = new Set(desired.params.filter((p) => p.sensitive === true).map((p) => p.name));
  return storeValues(desired.values, sensitive);
}

/** Refusals an explicit request cannot override: they protect the instance whichever plan runs. */
const BINDING_REFUSALS: ReadonlySet<RefusalCode> = new Set(['VERSION_DOWNGRADE', 'IMMUTABLE_PARAM']);

export function selectPlan(previous: PreviousState | undefined, desired: DesiredState): Selection {
  if (desired.removed === true) {
    return { kind: 'remove', cleanupPlan: desired.plans.includes('cleanup') ? 'cleanup' : undefined, reason: 'instance removed' };
  }
  const change = markChangeDriven(byChange(previous, desired));
  const request = desired.request;
  if (request?.explicit === true) {
    return change.kind === 'refuse' && BINDING_REFUSALS.has(change.code) ? change : explicitly(request, desired, change);
  }
  // Requests from Git wait behind changes, and behind the first deploy of a new instance.
  if (change.kind === 'nothing' && request !== undefined && previous !== undefined && !previous.handledRequests.includes(request.id)) return requested(request, desired);
  return change;
}

/** What the change rules select, ignoring requests: the plan whose run records the desired state as applied. */
function byChange(previous: PreviousState | undefined, desired: DesiredState): Selection {
  const has = (plan: string): boolean => desired.plans.includes(plan);
  if (previous === undefined) return run(has('deploy') ? 'deploy' : undefined, 'new instance', desired);

  const versionOrder = compareSemver(desired.frameworkVersion, previous.frameworkVersion);
  if (versionOrder < 0) {
    return refuse('VERSION_DOWNGRADE', `framework version ${desired.frameworkVersion} is lower than the applied ${previous.frameworkVersion}; downgrades are refused`, {
      from: previous.frameworkVersion,
      to: desired.frameworkVersion,
    });
  }
  const changed = changedKeys(previous.values, desiredStoredValues(desired));
  const immutable = changed.filter((k) => desired.params.find((p) => p.name === k)?.immutable === true);
  if (immutable.length > 0) {
    return refuse('IMMUTABLE_PARAM', `immutable parameter${immutable.length > 1 ? 's' : ''} ${immutable.join(', ')} cannot change after deploy`, { parameters: immutable });
  }
  if (versionOrder > 0) {
    const plan = ['upgrade', 'update', 'deploy'].find(has);
    return run(plan, `framework version ${previous.frameworkVersion} -> ${desired.frameworkVersion}`, desired);
  }
  if (changed.length > 0) return byTriggers(changed, desired);
  if (desired.frameworkHash !== previous.frameworkHash) {
    const warning = `the files of published framework version ${desired.frameworkVersion} changed; publish a new version instead`;
    const selection = run(has('update') ? 'update' : has('deploy') ? 'deploy' : undefined, 'framework files changed', desired);
    return selection.kind === 'run' ? { ...selection, warnings: [warning] } : selection;
  }
  return { kind: 'nothing', reason: 'desired state is already applied' };
}

function markChangeDriven(selection: Selection): Selection {
  return selection.kind === 'run' ? { ...selection, changeDriven: true } : selection;
}

/**
 * `baton apply --plan`: the requested plan runs in place of the change. It counts as applying the
 * desired state only when it is the very plan the change rules chose (`apply --plan deploy` on a new
 * instance); otherwise the change stays pending for the next plain reconcile.
 */
function explicitly(request: PlanRequest, desired: DesiredState, change: Selection): Selection {
  const selection = requested(request, desired);
  if (selection.kind !== 'run') return selection;
  if (change.kind === 'run' && change.plan === selection.plan) return { ...selection, warnings: change.warnings, changeDriven: true };
  return { ...selection, explicitOnly: true };
}

function requested(request: PlanRequest, desired: DesiredState): Selection {
  const selection = run(desired.plans.includes(request.plan) ? request.plan : undefined, `requested (${request.id})`, desired, request.plan);
  return selection.kind === 'run' ? { ...selection, args: { ...request.args }, requestId: request.id } : selection;
}

/** Each changed parameter's trigger plan; they must agree. */
function byTriggers(changed: string[], desired: DesiredState): Selection {
  const fallback = desired.plans.includes('update') ? 'update' : 'deploy';
  const planOf = new Map(changed.map((k) => [k, desired.params.find((p) => p.name === k)?.trigger ?? fallback]));
  const plans = [...new Set(planOf.values())].sort();
  if (plans.length > 1) {
    const pairs = [...planOf].map(([k, p]) => `${k} -> ${p}`).join(', ');
    return refuse('PLAN_CONFLICT', `changed parameters trigger different plans (${pairs}); change them in separate commits`, {
      parameters: Object.fromEntries(planOf),
      plans,
    });
  }
  return run(plans[0], `values changed: ${changed.join(', ')}`, desired);
}

function run(plan: string | undefined, reason: string, desired: DesiredState, wanted = 'deploy'): Selection {
  if (plan === undefined || !desired.plans.includes(plan)) {
    const name = plan ?? wanted;
    return refuse('PLAN_UNKNOWN', `plan ${name} is not defined by framework version ${desired.frameworkVersion}`, { plan: name, plans: [...desired.plans] });
  }
  return { kind: 'run', plan, reason, args: {}, warnings: [] };
}

function refuse(code: RefusalCode, message: string, details: Record<string, unknown>): Selection {
  return { kind: 'refuse', code, message, details };
}
