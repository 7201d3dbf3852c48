/**
 * The pods, tasks and plans of a DC/OS service spec, read from the expanded svc.yml with their
 * locations. Values stay `Expr`s (literal text and variables) until the objects are built.
 */
import type { FindingLog, SourceLocation } from '../report.js';
import type { YamlSource } from '../yaml-source.js';
import { isRecord, scalarText } from '../util.js';
import { lit, type Expr, type Part } from './expr.js';
import { splitVars, type VarUse } from './mustache.js';
import type { Variables } from './vars.js';

export type Goal = 'RUNNING' | 'FINISH' | 'ONCE';

export interface TaskSpec {
  name: string;
  goal: Goal;
  raw: Record<string, unknown>;
  path: (string | number)[];
}

export interface PodSpec {
  name: string;
  raw: Record<string, unknown>;
  path: (string | number)[];
  tasks: TaskSpec[];
}

export interface StepSpec {
  /** `default`, or the pod instance index the entry is for. */
  index: 'default' | number;
  taskSets: string[][];
  at: SourceLocation;
}

export interface PhaseSpec {
  name: string;
  strategy: string;
  pod: string;
  steps: StepSpec[] | undefined;
  at: SourceLocation;
}

export interface PlanSpec {
  name: string;
  strategy: string;
  phases: PhaseSpec[];
  at: SourceLocation;
}

/** Reads values of the expanded spec: variables become parts; import-time values are resolved. */
export class SpecValues {
  constructor(
    readonly src: YamlSource,
    private readonly uses: VarUse[],
    private readonly vars: Variables,
    private readonly log: FindingLog,
    readonly used: Set<string>,
  ) {}

  at(path: readonly (string | number)[]): SourceLocation {
    return this.src.at(path);
  }

  /** The value at `path` as an expression (undefined when absent). */
  expr(v: unknown, path: readonly (string | number)[]): Expr | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return lit(String(v));
    if (typeof v !== 'string') {
      this.log.error('IMPORT_DCOS_VALUE', this.at(path), `expected a scalar value, got ${Array.isArray(v) ? 'a list' : 'a mapping'}`);
      return undefined;
    }
    const parts: Part[] = [];
    for (const piece of splitVars(v)) {
      if (typeof piece === 'string') {
        parts.push({ lit: piece });
        continue;
      }
      const name = this.uses[piece]!.name;
      const e = this.vars.expr(name);
      if (!e) {
        this.log.error('IMPORT_DCOS_VARIABLE', this.at(path), `variable ${name} has no value: the package's marathon.json.mustache does not set it`);
        return undefined;
      }
      for (const p of e) if ('param' in p) this.used.add(p.param);
      parts.push(...e);
    }
    return parts;
  }

  /** The value at import time, variables replaced by their values (for structure decided at import). */
  importValue(v: unknown, path: readonly (string | number)[]): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') return scalarText(v);
    let out = '';
    for (const piece of splitVars(v)) {
      if (typeof piece === 'string') {
        out += piece;
        continue;
      }
      const name = this.uses[piece]!.name;
      const value = this.vars.value(name);
      if (value === undefined) {
        this.log.error('IMPORT_DCOS_IMPORT_VALUE', this.at(path), `${name} decides structure (placement, strategy, goal) and must have a value at import time; pass --package (and --options)`);
        return undefined;
      }
      this.log.mapped('IMPORT_DCOS_FIXED_AT_IMPORT', this.at(path), `${name}=${JSON.stringify(value)} is fixed at import time here (it decides structure); to change it, import again`);
      out += value;
    }
    return out;
  }
}

export function readPods(values: SpecValues, log: FindingLog): PodSpec[] {
  const spec = values.src.value;
  if (!isRecord(spec) || !isRecord(spec.pods) || Object.keys(spec.pods).length === 0) {
    log.error('IMPORT_DCOS_PODS', values.at(['pods']), 'svc.yml defines no pods');
    return [];
  }
  const pods: PodSpec[] = [];
  for (const [name, raw] of Object.entries(spec.pods)) {
    const path = ['pods', name];
    if (!isRecord(raw) || !isRecord(raw.tasks) || Object.keys(raw.tasks).length === 0) {
      log.error('IMPORT_DCOS_POD', values.at(path), `pod ${name} has no tasks`);
      continue;
    }
    const tasks: TaskSpec[] = [];
    for (const [tname, traw] of Object.entries(raw.tasks)) {
      const tpath = [...path, 'tasks', tname];
      if (!isRecord(traw)) {
        log.error('IMPORT_DCOS_TASK', values.at(tpath), `task ${tname} must be a mapping`);
        continue;
      }
      const g = values.importValue(traw.goal, [...tpath, 'goal']) ?? 'RUNNING';
      const goal = g === 'FINISHED' ? 'FINISH' : g;
      if (goal !== 'RUNNING' && goal !== 'FINISH' && goal !== 'ONCE') {
        log.error('IMPORT_DCOS_GOAL', values.at([...tpath, 'goal']), `task ${tname}: unknown goal ${JSON.stringify(g)} (RUNNING, FINISH or ONCE)`);
        continue;
      }
      if (g === 'FINISHED') log.mapped('IMPORT_DCOS_GOAL', values.at([...tpath, 'goal']), `goal FINISHED (older SDKs) read as FINISH`);
      tasks.push({ name: tname, goal, raw: traw, path: tpath });
    }
    pods.push({ name, raw, path, tasks });
  }
  return pods;
}

export function readPlans(values: SpecValues, pods: PodSpec[], log: FindingLog): PlanSpec[] {
  const spec = values.src.value as Record<string, unknown>;
  const plans: PlanSpec[] = [];
  if (!isRecord(spec.plans)) return plans;
  for (const [name, raw] of Object.entries(spec.plans)) {
    const path = ['plans', name];
    if (!isRecord(raw) || !isRecord(raw.phases)) {
      log.error('IMPORT_DCOS_PLAN', values.at(path), `plan ${name} needs phases (a mapping of phase name to phase)`);
      continue;
    }
    const phases: PhaseSpec[] = [];
    for (const [pname, praw] of Object.entries(raw.phases)) {
      const pp = [...path, 'phases', pname];
      if (!isRecord(praw) || typeof praw.pod !== 'string' || !pods.some((p) => p.name === praw.pod)) {
        log.error('IMPORT_DCOS_PHASE', values.at(pp), `plan ${name}, phase ${pname}: pod ${JSON.stringify(isRecord(praw) ? praw.pod : undefined)} is not a pod of this service`);
        continue;
      }
      phases.push({ name: pname, strategy: values.importValue(praw.strategy, [...pp, 'strategy']) ?? 'serial', pod: praw.pod, steps: readSteps(values, praw.steps, [...pp, 'steps'], log), at: values.at(pp) });
    }
    plans.push({ name, strategy: values.importValue(raw.strategy, [...path, 'strategy']) ?? 'serial', phases, at: values.at(path) });
  }
  return plans;
}

function readSteps(values: SpecValues, raw: unknown, path: (string | number)[], log: FindingLog): StepSpec[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    log.error('IMPORT_DCOS_STEPS', values.at(path), 'steps must be a list of `- default: [[task], ...]` or `- <index>: [[task], ...]` entries');
    return undefined;
  }
  const out: StepSpec[] = [];
  raw.forEach((entry, i) => {
    const at = values.at([...path, i]);
    if (!isRecord(entry) || Object.keys(entry).length !== 1) {
      log.error('IMPORT_DCOS_STEPS', at, 'a steps entry maps `default` or a pod instance index to a list of task lists');
      return;
    }
    const [k, sets] = Object.entries(entry)[0]!;
    const index = k === 'default' ? 'default' : /^\d+$/.test(k) ? Number(k) : undefined;
    if (index === undefined || !Array.isArray(sets) || !sets.every((s) => Array.isArray(s) && s.every((t) => typeof t === 'string'))) {
      log.error('IMPORT_DCOS_STEPS', at, `steps entry ${k}: expected default or an index, mapped to [[task, ...], ...]`);
      return;
    }
    out.push({ index, taskSets: sets, at });
  });
  return out;
}
