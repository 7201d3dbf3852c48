/**
 * Instance tasks in the engine: a step's child instances are reconciled in place, each through the same
 * engine as any instance (its own checkpoint `baton-checkpoint-<child>`, its own plans and gates), from
 * an instance file Baton writes in memory over the repository at the same commit. The step completes
 * when every child's plan completed and the child is healthy; a child that cannot be loaded (unknown
 * framework or version, parameters its framework refuses), fails or is unhealthy fails the step with
 * a located message and nothing of it is created. On the parent's removal, after the parent's own
 * objects, each child the parent's lifecycle plans render is removed (its cleanup plan runs first).
 * A child belongs to the parent that created it (claim.ts): another parent rendering a child of the
 * same name is refused (CHILD_NAME_TAKEN naming the owner) and its removal keeps that child.
 */
import { dump } from 'js-yaml';
import type { KubeClient } from '../../kube/client.js';
import { BatonError, errorMessage } from '../../errors.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import type { ReconcileResult } from '../../plans/reconcile.js';
import type { ChildParent, StoredCheckpoint } from '../../plans/checkpoint.js';
import type { DesiredExtras } from '../../plans/desired.js';
import { RenderProblemsError, problemLocation } from '../../render/problems.js';
import type { FileTree } from '../../render/tree.js';
import type { EventListener } from '../../plans/events.js';
import type { RenderedChild } from '../../render/types.js';
import { OverlayTree } from '../../testing/overlay-tree.js';
import { dependencyState, type DependencySource } from '../depends/readiness.js';
import { instanceFileOf } from '../depends/graph.js';
import { resolveChildVersion } from './graph.js';
import { claimChild, ownerOf, type ChildClaim } from './claim.js';

export type ChildErrorCode = 'CHILD_NAME_TAKEN' | 'CHILD_FRAMEWORK_UNKNOWN' | 'CHILD_INVALID' | 'CHILD_FAILED' | 'CHILD_UNHEALTHY';

export class ChildError extends BatonError {
  declare readonly code: ChildErrorCode;
  constructor(code: ChildErrorCode, message: string, object: string, context: Record<string, unknown> = {}) {
    super(code, message, { object, ...context });
  }
}

export interface ChildSource extends DependencySource {
  sensitiveValues: string[];
  framework: { version: string };
}

/** A child as an observer sees it: its key, framework, and the parent task that renders it. */
export interface ChildIdentity {
  key: { namespace: string; name: string };
  framework: { name: string; version: string };
  parent: { namespace: string; name: string };
  task: string;
  /** Values to mask in anything recorded about the child (its own and the parent's). */
  sensitiveValues: readonly string[];
}

/**
 * Watches one child's reconcile: its engine events, then its result (the agent writes the child's own
 * status file and history from them, as for an instance with a file).
 */
export interface ChildObserver {
  onEvent: EventListener;
  done: (result: ReconcileResult) => Promise<void>;
}

/**
 * Starts watching a child. It may read first (a shard member reads the child's record from the branch
 * when its parent's worker first meets the child, see src/sync/child-records.ts): the child's reconcile
 * starts once it has answered.
 */
export type ObserveChild = (child: ChildIdentity) => ChildObserver | undefined | Promise<ChildObserver | undefined>;

export interface ChildRunnerDeps<S extends ChildSource> {
  client: KubeClient;
  tree: FileTree;
  parent: { namespace: string; name: string; file: string };
  load: (tree: FileTree, file: string, extras: DesiredExtras) => Promise<S>;
  /**
   * Reconciles a child; `onEvent` sees the child's engine events (its plan and steps starting). `loaded`
   * is its checkpoint as the claim just read or wrote it (saves reading it again).
   */
  reconcile: (source: S, onEvent?: EventListener, loaded?: { stored: StoredCheckpoint | undefined }) => Promise<ReconcileResult>;
  /** The children the parent's lifecycle plans (deploy, update, upgrade) render now. */
  lifecycleChildren: () => Promise<RenderedChild[]>;
  now: () => Date;
  /** Called for each child before it is reconciled (run or removal); absent: nobody watches. */
  observe?: ObserveChild;
}

/**
 * What the parent's step waits on while a child runs: the child (`Instance <namespace>/<name>`) and
 * what it does (`its deploy plan: step quorum/servers`). The executor records it as the step's message
 * and a `step-waiting` event, so `baton plan status` of the parent says what it waits for.
 */
export type ChildProgress = (object: string, message: string) => Promise<void>;

/** What removing a parent's children did: removed `<namespace>/<name>`, and children kept because another parent owns them. */
export interface ChildRemoval {
  removed: string[];
  kept: { child: string; owner: ChildParent }[];
}

export interface ChildRunner {
  /** Runs the step's children to completion and health; returns a line for the step's message. */
  run(children: readonly RenderedChild[], onProgress?: ChildProgress): Promise<string>;
  /** Removes the parent's children (after its own objects), except those another parent owns. */
  removeAll(): Promise<ChildRemoval>;
}

export function childRunner<S extends ChildSource>(deps: ChildRunnerDeps<S>): ChildRunner {
  const ns = deps.parent.namespace;
  const label = (c: RenderedChild): string => `child instance ${ns}/${c.name} (Instance task ${c.task}, framework ${c.framework} ${c.version})`;
  const objectOf = (c: RenderedChild): string => `Instance ${ns}/${c.name}`;
  const store = new ConfigMapCheckpointStore(deps.client);
  const me = (c: RenderedChild): ChildParent => ({ instance: `${ns}/${deps.parent.name}`, task: c.task });
  const taken = (c: RenderedChild, owner: ChildParent): ChildError =>
    new ChildError('CHILD_NAME_TAKEN', `${label(c)} belongs to parent ${owner.instance} (its Instance task ${owner.task}), which created it: ${deps.parent.file} may not run or remove it; a child belongs to the parent that created it until that parent is removed (give this parent's child another name)`, objectOf(c), { owner: owner.instance, ownerTask: owner.task });
  /** The child is this parent's from now on, or CHILD_NAME_TAKEN (before anything of it is read into this parent's records or changed). */
  const claim = async (c: RenderedChild): Promise<StoredCheckpoint | undefined> => {
    const claimed = await claimChild(store, { namespace: ns, name: c.name }, c.framework, me(c));
    if (claimed.kind === 'taken') throw taken(c, claimed.owner);
    return claimed.stored;
  };
  /** A read-only look first, so a child another parent owns is refused before it is even loaded. */
  const look = async (c: RenderedChild): Promise<ChildClaim> => ownerOf(await store.load({ namespace: ns, name: c.name }), me(c));

  const childTree = async (c: RenderedChild): Promise<{ tree: OverlayTree; file: string; version: string }> => {
    if ((await instanceFileOf(deps.tree, { namespace: ns, name: c.name })) !== undefined) {
      throw new ChildError('CHILD_NAME_TAKEN', `${label(c)}: instances/${ns}/${c.name}.yaml exists in the repository; a child may not take the name of an instance`, objectOf(c));
    }
    const resolved = await resolveChildVersion(deps.tree, c.framework, c.version);
    if (!resolved.ok) throw new ChildError('CHILD_FRAMEWORK_UNKNOWN', `${label(c)}: ${resolved.message}`, objectOf(c));
    const tree = new OverlayTree(deps.tree);
    const file = `instances/${ns}/${c.name}.yaml`;
    tree.top.set(file, dump({ apiVersion: 'baton.dev/v1alpha1', kind: 'Instance', framework: c.framework, version: resolved.version, params: c.params }, { noRefs: true }));
    return { tree, file, version: resolved.version };
  };

  const observe = async (c: RenderedChild, source: S): Promise<ChildObserver | undefined> =>
    deps.observe?.({ key: { namespace: ns, name: c.name }, framework: { name: c.framework, version: source.framework.version }, parent: { namespace: ns, name: deps.parent.name }, task: c.task, sensitiveValues: source.sensitiveValues });

  const load = async (c: RenderedChild, extras: DesiredExtras): Promise<S> => {
    const { tree, file } = await childTree(c);
    try {
      return await deps.load(tree, file, extras);
    } catch (err) {
      const detail = err instanceof RenderProblemsError ? err.problems.filter((p) => p.severity === 'error').map((p) => `${problemLocation(p)}: ${p.code}: ${p.message}`).join('; ') : errorMessage(err);
      throw new ChildError('CHILD_INVALID', `${label(c)} cannot be created as rendered by ${deps.parent.file}: ${detail}`, objectOf(c));
    }
  };

  const runOne = async (c: RenderedChild, onProgress: ChildProgress): Promise<string> => {
    const seen = await look(c);
    if (seen.kind === 'taken') throw taken(c, seen.owner);
    const source = await load(c, {});
    // Claimed once it loads (a child that cannot be loaded gets no checkpoint); the loser of two parents
    // creating it at once is refused here, before it reconciles or records anything. A child already
    // recorded as this task's needs no write (nor another read: an owner never changes but by removal).
    const recorded = seen.stored?.checkpoint.parent;
    const stored = seen.stored !== undefined && recorded?.instance === me(c).instance && recorded.task === c.task ? seen.stored : await claim(c);
    const object = objectOf(c);
    const about = `child instance (framework ${c.framework} ${source.framework.version}; baton plan status ${ns}/${c.name})`;
    await onProgress(object, `${about}: checking whether a plan must run`);
    // Progress reports are chained, so they reach the parent's checkpoint in order and before the result.
    let reported = Promise.resolve();
    const report = (message: string): void => {
      reported = reported.then(() => onProgress(object, `${about}: ${message}`)).catch(() => undefined);
    };
    const observer = await observe(c, source);
    const result = await deps.reconcile(source, (e) => {
      observer?.onEvent(e);
      if (e.type === 'plan-started') report(`its ${e.plan} plan ${e.resumed ? 'resumed' : 'started'}`);
      else if (e.type === 'step-started' && e.attempt === 0) report(`its ${e.plan} plan: step ${e.phase}/${e.step}`);
    }, { stored });
    await observer?.done(result);
    await reported;
    if (result.kind === 'refused') throw new ChildError('CHILD_FAILED', `${label(c)} was refused: ${result.refusal.code}: ${result.refusal.message}`, objectOf(c));
    if (result.kind === 'ran' && result.execution.outcome !== 'complete') {
      const why = result.execution.outcome === 'failed' ? `${result.execution.error.code}: ${result.execution.error.message}` : 'it was superseded';
      throw new ChildError('CHILD_FAILED', `${label(c)}: its ${result.execution.run.plan} plan did not complete: ${why}`, objectOf(c));
    }
    await onProgress(object, `${about}: checking its health`);
    const state = await dependencyState(deps.client, { namespace: ns, name: c.name }, () => Promise.resolve(source), deps.now());
    if (!state.ready) throw new ChildError('CHILD_UNHEALTHY', `${label(c)} is not ready: ${state.reason}`, objectOf(c));
    const plan = result.kind === 'ran' ? `${result.execution.run.plan} COMPLETE` : 'up to date';
    return `child ${ns}/${c.name} (${c.framework}): ${plan}, healthy`;
  };

  return {
    async run(children, onProgress = () => Promise.resolve()) {
      const lines: string[] = [];
      for (const c of children) lines.push(await runOne(c, onProgress));
      return lines.join('; ');
    },
    async removeAll() {
      const removal: ChildRemoval = { removed: [], kept: [] };
      const seen = new Set<string>();
      for (const c of await deps.lifecycleChildren()) {
        if (seen.has(c.name)) continue;
        seen.add(c.name);
        const first = await look(c);
        if (first.kind === 'mine' && first.stored === undefined) continue;
        if (first.kind === 'taken') {
          removal.kept.push({ child: `${ns}/${c.name}`, owner: first.owner });
          continue;
        }
        const source = await load(c, { removed: true });
        // An ownerless (older) checkpoint is adopted by this removal; one another parent took meanwhile is kept.
        const claimed = await claimChild(store, { namespace: ns, name: c.name }, c.framework, me(c), false);
        if (claimed.kind === 'taken') {
          removal.kept.push({ child: `${ns}/${c.name}`, owner: claimed.owner });
          continue;
        }
        if (claimed.stored === undefined) continue;
        const observer = await observe(c, source);
        const result = await deps.reconcile(source, observer?.onEvent, { stored: claimed.stored });
        await observer?.done(result);
        if (result.kind !== 'removed' || result.report.failed.length > 0 || (result.cleanup !== undefined && result.cleanup.outcome !== 'complete')) {
          throw new ChildError('CHILD_FAILED', `${label(c)} could not be removed`, objectOf(c));
        }
        removal.removed.push(`${ns}/${c.name}`);
      }
      return removal;
    },
  };
}
