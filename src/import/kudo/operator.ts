/**
 * KUDO operator.yaml -> Baton framework.yaml: metadata, tasks, plans, phases, steps and strategies.
 * Each task kind has one mapper; a kind Baton cannot express (Dummy) is reported as not translated
 * and dropped from the steps that name it, so adding its mapping later is one function. Pipe: ./pipe.ts.
 */
import type { FrameworkDecl, PlanDecl, TaskDecl } from '../../render/schemas.js';
import type { FindingLog, SourceLocation } from '../report.js';
import type { YamlSource } from '../yaml-source.js';
import { isRecord, scalarText, toDnsLabel, toSemver } from '../util.js';
import { convertPipeTask } from './pipe.js';

export interface KudoTask {
  name: string;
  kind: string;
  spec: Record<string, unknown>;
  at: SourceLocation;
}

export interface TaskContext {
  log: FindingLog;
  /** The Baton template file for a KUDO template name (`deploy.yaml` -> `deploy.yaml.ejs`). */
  template(resource: string, at: SourceLocation): string | undefined;
  /** Whether a parameter is (or can be made) boolean, for Toggle. */
  booleanParam(name: string): boolean;
  /** The Baton partial for a KUDO template that another template includes (`p.yaml` -> `_p.yaml.ejs`). */
  partial(resource: string, at: SourceLocation): string | undefined;
  /** Adds a generated template (not from the package) and returns its file name under templates/. */
  generatedTemplate(preferredName: string, content: string): string;
  /** A package template's text (undefined, with an error logged, when there is none). */
  source(resource: string, at: SourceLocation): string | undefined;
  /** Adds a Go template made by the importer, to translate like the package's; returns its file name. */
  generatedGoTemplate(preferredName: string, origin: string, source: string): string;
  /** `.Pipes.<key>` -> the Pipe task whose output object it names. */
  pipeKeys: Map<string, string>;
}

type TaskMapper = (task: KudoTask, cx: TaskContext) => TaskDecl | undefined;

function resources(task: KudoTask, cx: TaskContext): string[] | undefined {
  const list = task.spec.resources;
  if (!Array.isArray(list) || list.length === 0) {
    cx.log.error('IMPORT_TASK_RESOURCES', task.at, `task ${task.name} (${task.kind}) lists no resources`);
    return undefined;
  }
  const out: string[] = [];
  for (const r of list) {
    const t = typeof r === 'string' ? cx.template(r, task.at) : undefined;
    if (t === undefined) return undefined;
    out.push(t);
  }
  return out;
}

const notYet =
  (code: string, what: string): TaskMapper =>
  (task, cx) => {
    cx.log.untranslated(code, task.at, `task ${task.name}: ${what}; it is left out of every step that names it`);
    return undefined;
  };

/** One mapper per KUDO task kind. */
export const TASK_MAPPERS: Record<string, TaskMapper> = {
  Apply: (task, cx) => {
    const r = resources(task, cx);
    return r ? { name: task.name, kind: 'Apply', resources: r } : undefined;
  },
  Delete: (task, cx) => {
    const r = resources(task, cx);
    return r ? { name: task.name, kind: 'Delete', resources: r } : undefined;
  },
  Toggle: (task, cx) => {
    const r = resources(task, cx);
    const parameter = task.spec.parameter;
    if (typeof parameter !== 'string' || !cx.booleanParam(parameter)) {
      cx.log.error('IMPORT_TASK_TOGGLE', task.at, `task ${task.name}: Toggle needs a boolean parameter; ${JSON.stringify(parameter)} is not one`);
      return undefined;
    }
    return r ? { name: task.name, kind: 'Toggle', parameter, resources: r } : undefined;
  },
  Pipe: (task, cx) => {
    const pod = typeof task.spec.pod === 'string' ? task.spec.pod : undefined;
    const podSource = pod === undefined ? undefined : cx.source(pod, task.at);
    if (pod !== undefined && podSource === undefined) return undefined;
    const jobName = `${task.name}-pipe-job.yaml.ejs`;
    const converted = convertPipeTask(task, podSource, cx.log, jobName);
    if (!converted) return undefined;
    const file = cx.generatedGoTemplate(jobName, `templates/${pod} (as a Job)`, converted.jobSource);
    for (const p of converted.pipes) {
      const other = cx.pipeKeys.get(p.key);
      if (other !== undefined && other !== task.name) {
        cx.log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: pipe key ${p.key} is also a key of task ${other}`);
        return undefined;
      }
      cx.pipeKeys.set(p.key, task.name);
    }
    return { ...converted.decl, resources: [file] };
  },
  KudoOperator: kudoOperatorTask,
  Dummy: notYet('IMPORT_TASK_DUMMY', 'Dummy tasks only exist for testing KUDO itself'),
};

/** The framework name a KUDO `package` names: a repository package name, a folder or a tarball URL. */
function packageName(pkg: string): string {
  const last = pkg.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() ?? '';
  // `zookeeper-0.3.0.tgz` (a packed KUDO package) -> zookeeper
  return toDnsLabel(last.replace(/\.(tgz|tar\.gz)$/, '').replace(/[-_]v?\d+(\.\d+)*$/, ''));
}

/**
 * KUDO's `KudoOperator` task (KEP-29) installs an instance of another operator as a step; Baton's
 * `Instance` task is the same idea (docs/composition.md). `package` names the child framework (it must be
 * in the repository: import its KUDO package too), `operatorVersion` the exact version (else the highest),
 * `instanceName` the child's name (else `<instance>-<package>`, as KUDO names it), and `parameterFile`
 * (a template rendering the child's parameters) is translated as a partial that the child template includes.
 */
function kudoOperatorTask(task: KudoTask, cx: TaskContext): TaskDecl | undefined {
  const spec = task.spec;
  const pkg = typeof spec.package === 'string' ? spec.package.trim() : '';
  const framework = packageName(pkg);
  if (framework === '') {
    cx.log.error('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name}: KudoOperator needs spec.package (the operator to install), got ${JSON.stringify(spec.package)}`);
    return undefined;
  }
  if (framework !== pkg) cx.log.mapped('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name}: package ${JSON.stringify(pkg)} is framework ${framework} of this repository`);
  let version = '*';
  if (spec.operatorVersion !== undefined) {
    const v = toSemver(scalarText(spec.operatorVersion));
    if (v === undefined) {
      cx.log.error('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name}: operatorVersion ${JSON.stringify(spec.operatorVersion)} is not a version (expected e.g. 0.3.0)`);
      return undefined;
    }
    version = v;
  }
  if (spec.appVersion !== undefined) {
    cx.log.untranslated('IMPORT_TASK_KUDO_OPERATOR_APP_VERSION', task.at, `task ${task.name}: appVersion ${scalarText(spec.appVersion)} is not kept: Baton chooses a child by framework version${version === '*' ? ' (here the highest in the repository)' : ` (here ${version})`}`);
  }
  let name = '<%= instance.name %>-' + framework;
  if (spec.instanceName !== undefined) {
    const given = toDnsLabel(scalarText(spec.instanceName));
    if (given === '') {
      cx.log.error('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name}: instanceName ${JSON.stringify(spec.instanceName)} is not a name (expected a DNS-1123 label)`);
      return undefined;
    }
    name = given;
    cx.log.mapped('IMPORT_TASK_KUDO_OPERATOR_NAME', task.at, `task ${task.name}: the child instance is named ${given} in the parent's namespace (as KUDO does): two instances of this framework in one namespace would both claim it; leave instanceName out to get <instance>-${framework}`);
  }
  let params = ' {}';
  if (spec.parameterFile !== undefined) {
    const partial = typeof spec.parameterFile === 'string' ? cx.partial(spec.parameterFile, task.at) : undefined;
    if (partial === undefined) {
      if (typeof spec.parameterFile !== 'string') cx.log.error('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name}: parameterFile must name a template in templates/, got ${JSON.stringify(spec.parameterFile)}`);
      return undefined;
    }
    params = `<%- nindent(2, include(${JSON.stringify(partial.replace(/\.ejs$/, ''))})) %>`;
  }
  for (const k of Object.keys(spec)) {
    if (!['package', 'operatorVersion', 'appVersion', 'instanceName', 'parameterFile'].includes(k)) cx.log.untranslated('IMPORT_TASK_FIELD', task.at, `task ${task.name}: KudoOperator field ${k} is not a KUDO field; left out`);
  }
  const content = [
    `<%# Imported by baton import kudo from operator.yaml task ${task.name} (KudoOperator): the child instance. -%>`,
    'apiVersion: baton.dev/v1alpha1',
    'kind: Instance',
    'metadata:',
    `  name: ${name}`,
    `params:${params}`,
    '',
  ].join('\n');
  const file = cx.generatedTemplate(`${task.name}-instance.yaml.ejs`, content);
  cx.log.mapped('IMPORT_TASK_KUDO_OPERATOR', task.at, `task ${task.name} -> Instance task: framework ${framework} ${version === '*' ? 'at its highest version' : version} (it must exist under frameworks/: import its KUDO package first), child ${name.replace('<%= instance.name %>', '<instance>')}, rendered by templates/${file}; the step completes when the child's plan completed and it is healthy, and removal removes the child after the parent's objects`);
  return { name: task.name, kind: 'Instance', framework, version, resources: [file] };
}

export interface OperatorResult {
  decl: Omit<FrameworkDecl, 'tasks' | 'plans'> & { tasks: TaskDecl[]; plans: Record<string, PlanDecl> };
  /** KUDO plan name -> Baton plan name. */
  planNames: Map<string, string>;
  /** Template files the tasks name (KUDO names). */
  kudoTasks: KudoTask[];
}

const FIELDS = new Set(['apiVersion', 'name', 'description', 'operatorVersion', 'version', 'appVersion', 'kudoVersion', 'kubernetesVersion', 'maintainers', 'url', 'tasks', 'plans', 'namespaceManifest']);

/** Metadata and plan names; tasks and plans are converted by `convertTasksAndPlans` once parameters are known. */
export function readOperator(src: YamlSource, log: FindingLog): OperatorResult | undefined {
  const v = src.value;
  if (!isRecord(v)) {
    log.error('IMPORT_OPERATOR_FORMAT', src.at([]), 'operator.yaml must be a mapping');
    return undefined;
  }
  for (const k of Object.keys(v)) if (!FIELDS.has(k)) log.untranslated('IMPORT_OPERATOR_FIELD', src.at([k]), `operator.yaml field ${k} is not a KUDO field; left out`);
  for (const k of ['kudoVersion', 'kubernetesVersion'] as const) if (v[k] !== undefined) log.untranslated('IMPORT_OPERATOR_VERSIONS', src.at([k]), `${k} is not kept: Baton has no minimum version of itself or of Kubernetes per framework`);
  if (v.apiVersion !== undefined && v.apiVersion !== 'kudo.dev/v1beta1') log.mapped('IMPORT_OPERATOR_API_VERSION', src.at(['apiVersion']), `apiVersion ${scalarText(v.apiVersion)} read as kudo.dev/v1beta1`);
  const rawName = typeof v.name === 'string' ? v.name : '';
  const name = toDnsLabel(rawName);
  if (name === '') {
    log.error('IMPORT_OPERATOR_NAME', src.at(['name']), 'operator.yaml has no name');
    return undefined;
  }
  if (name !== rawName) log.mapped('IMPORT_OPERATOR_NAME', src.at(['name']), `name ${JSON.stringify(rawName)} becomes framework ${name} (a DNS-1123 label)`);
  const versionField = v.operatorVersion !== undefined ? 'operatorVersion' : 'version';
  if (versionField === 'version' && v.version !== undefined) log.mapped('IMPORT_OPERATOR_VERSION_FIELD', src.at(['version']), 'the older `version` field is read as operatorVersion');
  const rawVersion = v[versionField] === undefined ? '' : scalarText(v[versionField]);
  const version = toSemver(rawVersion);
  if (version === undefined) {
    log.error('IMPORT_OPERATOR_VERSION', src.at([versionField]), `operatorVersion ${JSON.stringify(rawVersion)} is not a version (expected e.g. 1.2.0)`);
    return undefined;
  }
  if (version !== rawVersion) log.mapped('IMPORT_OPERATOR_VERSION', src.at([versionField]), `operatorVersion ${rawVersion} becomes framework version ${version}`);
  const decl: OperatorResult['decl'] = { apiVersion: 'baton.dev/v1alpha1', kind: 'Framework', name, version, appVersion: v.appVersion === undefined ? '' : scalarText(v.appVersion), tasks: [], plans: {} };
  if (typeof v.description === 'string') decl.description = v.description.trim();
  if (typeof v.url === 'string') decl.url = v.url;
  if (Array.isArray(v.maintainers)) {
    decl.maintainers = v.maintainers.filter(isRecord).map((m) => ({ name: scalarText(m.name ?? ''), ...(typeof m.email === 'string' ? { email: m.email } : {}), ...(typeof m.url === 'string' ? { url: m.url } : {}) }));
  }
  const planNames = new Map<string, string>();
  if (isRecord(v.plans)) {
    for (const p of Object.keys(v.plans)) {
      const b = p.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
      if (b !== p) log.mapped('IMPORT_PLAN_NAME', src.at(['plans', p]), `plan ${p} becomes ${b} (Baton plan names are lowercase words joined by "-")`);
      planNames.set(p, b);
    }
  }
  const kudoTasks: KudoTask[] = [];
  if (Array.isArray(v.tasks)) {
    v.tasks.forEach((t, i) => {
      const at = src.at(['tasks', i]);
      if (!isRecord(t) || typeof t.name !== 'string' || t.name === '') {
        log.error('IMPORT_TASK_FORMAT', at, 'a task needs a name and a kind');
        return;
      }
      kudoTasks.push({ name: t.name, kind: typeof t.kind === 'string' ? t.kind : '', spec: isRecord(t.spec) ? t.spec : {}, at: src.at(['tasks', i, 'kind']) });
    });
  }
  return { decl, planNames, kudoTasks };
}

/** Converts tasks, then plans (dropping what names a task that was not translated). */
export function convertTasksAndPlans(src: YamlSource, op: OperatorResult, cx: TaskContext): void {
  const v = src.value as Record<string, unknown>;
  const translated = new Set<string>();
  const names = new Set<string>();
  for (const t of op.kudoTasks) {
    if (names.has(t.name)) {
      cx.log.error('IMPORT_TASK_DUPLICATE', t.at, `task ${t.name} is declared twice`);
      continue;
    }
    names.add(t.name);
    const mapper = TASK_MAPPERS[t.kind];
    if (!mapper) {
      cx.log.error('IMPORT_TASK_KIND', t.at, `task ${t.name}: unknown task kind ${JSON.stringify(t.kind)} (KUDO kinds: ${Object.keys(TASK_MAPPERS).join(', ')})`);
      continue;
    }
    const decl = mapper(t, cx);
    if (decl) {
      op.decl.tasks.push(decl);
      translated.add(t.name);
    }
  }
  if (!isRecord(v.plans) || Object.keys(v.plans).length === 0) {
    cx.log.error('IMPORT_PLANS', src.at(['plans']), 'operator.yaml defines no plans');
    return;
  }
  for (const [kudoName, rawPlan] of Object.entries(v.plans)) {
    const plan = convertPlan(src, kudoName, rawPlan, names, translated, cx.log);
    if (plan) op.decl.plans[op.planNames.get(kudoName)!] = plan;
  }
  if (!op.decl.plans.deploy) cx.log.error('IMPORT_PLAN_DEPLOY', src.at(['plans']), 'no deploy plan survives the import (Baton needs one)');
}

function strategy(value: unknown, at: SourceLocation, log: FindingLog): 'serial' | 'parallel' | undefined {
  if (value === undefined || value === null || value === 'serial') return 'serial';
  if (value === 'parallel') return 'parallel';
  log.error('IMPORT_STRATEGY', at, `unknown strategy ${JSON.stringify(value)} (serial or parallel)`);
  return undefined;
}

function convertPlan(src: YamlSource, name: string, raw: unknown, declared: Set<string>, translated: Set<string>, log: FindingLog): PlanDecl | undefined {
  const path = ['plans', name];
  if (!isRecord(raw) || !Array.isArray(raw.phases)) {
    log.error('IMPORT_PLAN_FORMAT', src.at(path), `plan ${name} needs a list of phases`);
    return undefined;
  }
  const plan: PlanDecl = { strategy: strategy(raw.strategy, src.at([...path, 'strategy']), log) ?? 'serial', phases: [] };
  raw.phases.forEach((ph, i) => {
    const pp = [...path, 'phases', i];
    if (!isRecord(ph) || typeof ph.name !== 'string' || !Array.isArray(ph.steps)) {
      log.error('IMPORT_PHASE_FORMAT', src.at(pp), `plan ${name}: a phase needs a name and steps`);
      return;
    }
    const phaseName = ph.name;
    const phase = { name: phaseName, strategy: strategy(ph.strategy, src.at([...pp, 'strategy']), log) ?? 'serial', steps: [] as PlanDecl['phases'][number]['steps'] };
    ph.steps.forEach((st, j) => {
      const sp = [...pp, 'steps', j];
      if (!isRecord(st) || typeof st.name !== 'string') {
        log.error('IMPORT_STEP_FORMAT', src.at(sp), `plan ${name}, phase ${phaseName}: a step needs a name`);
        return;
      }
      const tasks: string[] = [];
      (Array.isArray(st.tasks) ? st.tasks : []).forEach((t, k) => {
        const tname = scalarText(t);
        if (!declared.has(tname)) log.error('IMPORT_STEP_TASK', src.at([...sp, 'tasks', k]), `step ${String(st.name)} names task ${tname}, which operator.yaml does not declare`);
        else if (translated.has(tname)) tasks.push(tname);
      });
      if (tasks.length === 0) log.untranslated('IMPORT_STEP_EMPTY', src.at(sp), `plan ${name}, phase ${phaseName}, step ${st.name}: no translated task is left; the step is left out`);
      else phase.steps.push({ name: st.name, tasks });
    });
    if (phase.steps.length === 0) log.untranslated('IMPORT_PHASE_EMPTY', src.at(pp), `plan ${name}, phase ${phaseName}: no step is left; the phase is left out`);
    else plan.phases.push(phase);
  });
  if (plan.phases.length === 0) {
    log.untranslated('IMPORT_PLAN_EMPTY', src.at(path), `plan ${name}: no phase is left; the plan is left out`);
    return undefined;
  }
  return plan;
}
