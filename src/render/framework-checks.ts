/**
 * Static checks of one framework version, beyond its schema: a deploy plan, tasks and templates that
 * exist, triggers naming plans, toggles naming boolean parameters, sound parameter declarations, and
 * warnings for unused tasks, templates and parameters and for raw `<%-` output of non-YAML values.
 */
import type { Framework } from './model.js';
import { checkParamValue } from './params.js';
import { lifecycleProblems } from './lifecycle-checks.js';
import { compileRepoPattern } from './pattern.js';
import { problem, type Problem } from './problems.js';
import type { SourceFile, YamlPath } from './source.js';

function at(src: SourceFile | undefined, file: string, path: YamlPath, atKey = false): Pick<Problem, 'file' | 'path' | 'line' | 'column'> {
  return { file, path, ...(src ? src.locate(path, atKey) : { line: 0, column: 0 }) };
}

export function frameworkProblems(fw: Framework): Problem[] {
  const out: Problem[] = [];
  const src = fw.frameworkSource;
  const file = src.file;
  const plans = fw.decl.plans;
  if (!plans.deploy) out.push(problem({ code: 'PLAN_DEPLOY_MISSING', ...at(src, file, ['plans'], true), message: 'every framework needs a "deploy" plan: it runs when an instance is created' }));

  const taskNames = new Map<string, number>();
  fw.decl.tasks.forEach((t, i) => {
    if (taskNames.has(t.name)) out.push(problem({ code: 'TASK_DUPLICATE', ...at(src, file, ['tasks', i, 'name']), message: `task "${t.name}" is declared twice` }));
    taskNames.set(t.name, i);
    t.resources.forEach((r, j) => {
      if (!fw.templates.has(r)) out.push(problem({ code: 'TEMPLATE_MISSING', ...at(src, file, ['tasks', i, 'resources', j]), message: `task ${t.name} names template ${r}, which does not exist in ${fw.dir}/templates` }));
    });
    if (t.kind === 'Toggle') {
      const decl = fw.params.find((p) => p.name === t.parameter);
      if (!decl) out.push(problem({ code: 'TOGGLE_PARAM_UNKNOWN', ...at(src, file, ['tasks', i, 'parameter']), message: `Toggle task ${t.name} names parameter ${t.parameter}, which params.yaml does not declare` }));
      else if (decl.type !== 'boolean') out.push(problem({ code: 'TOGGLE_PARAM_TYPE', ...at(src, file, ['tasks', i, 'parameter']), message: `Toggle task ${t.name} needs a boolean parameter; ${t.parameter} is ${decl.type}` }));
    }
  });

  const usedTasks = new Set<string>();
  for (const [planName, plan] of Object.entries(plans)) {
    plan.phases.forEach((ph, pi) =>
      ph.steps.forEach((st, si) =>
        st.tasks.forEach((t, ti) => {
          usedTasks.add(t);
          if (!taskNames.has(t)) {
            out.push(problem({ code: 'TASK_UNKNOWN', ...at(src, file, ['plans', planName, 'phases', pi, 'steps', si, 'tasks', ti]), message: `step ${ph.name}/${st.name} of plan ${planName} names task "${t}", which is not declared under tasks` }));
          }
        }),
      ),
    );
  }
  fw.decl.tasks.forEach((t, i) => {
    if (!usedTasks.has(t.name)) out.push(problem({ code: 'TASK_UNUSED', severity: 'warning', ...at(src, file, ['tasks', i, 'name']), message: `task ${t.name} is not used by any plan` }));
  });

  if (fw.decl.namespaceManifest !== undefined && !fw.templates.has(fw.decl.namespaceManifest)) {
    out.push(problem({ code: 'TEMPLATE_MISSING', ...at(src, file, ['namespaceManifest']), message: `namespaceManifest names template ${fw.decl.namespaceManifest}, which does not exist in ${fw.dir}/templates` }));
  }
  out.push(...templateWarnings(fw), ...paramProblems(fw), ...lifecycleProblems(fw));
  return out;
}

const RAW_OK = /^\s*(toYaml|toJson|indent|nindent|include|quote)\s*\(/;

function templateWarnings(fw: Framework): Problem[] {
  const out: Problem[] = [];
  const referenced = new Set(fw.decl.tasks.flatMap((t) => t.resources));
  if (fw.decl.namespaceManifest) referenced.add(fw.decl.namespaceManifest);
  const allText = [...fw.templates.values()].map((t) => t.text).join('\n');
  for (const t of fw.templates.values()) {
    const base = t.name.split('/').pop() ?? t.name;
    const includedByName = allText.includes(`'${t.name.replace(/\.ejs$/, '').replace(/\.yaml$/, '')}`) || allText.includes(`"${t.name.replace(/\.ejs$/, '').replace(/\.yaml$/, '')}`);
    if (!referenced.has(t.name) && !base.startsWith('_') && !includedByName) {
      out.push(problem({ code: 'TEMPLATE_UNUSED', severity: 'warning', file: t.file, message: `template ${t.name} is not named by any task (partials start with "_")` }));
    }
    const re = /<%-([\s\S]*?)[-_]?%>/g;
    for (let m = re.exec(t.text); m; m = re.exec(t.text)) {
      if (!RAW_OK.test(m[1] ?? '')) {
        const line = t.text.slice(0, m.index).split('\n').length;
        out.push(problem({ code: 'TEMPLATE_RAW_OUTPUT', severity: 'warning', file: t.file, line, column: m.index - t.text.lastIndexOf('\n', m.index - 1), message: 'raw output <%- prints a value that is not YAML by construction; use <%= (YAML-safe) or toYaml()/include()' }));
      }
    }
  }
  return out;
}

function paramProblems(fw: Framework): Problem[] {
  const out: Problem[] = [];
  const src = fw.paramsSource;
  const file = `${fw.dir}/params.yaml`;
  const allText = [...fw.templates.values()].map((t) => t.text).join('\n');
  const toggles = new Set(fw.decl.tasks.flatMap((t) => (t.kind === 'Toggle' ? [t.parameter] : [])));
  const seen = new Set<string>();
  fw.params.forEach((p, i) => {
    const here = (field?: string): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => at(src, file, field ? [i, field] : [i]);
    if (seen.has(p.name)) out.push(problem({ code: 'PARAM_DUPLICATE', ...here('name'), message: `parameter ${p.name} is declared twice` }));
    seen.add(p.name);
    if (p.trigger !== undefined && !fw.decl.plans[p.trigger]) {
      out.push(problem({ code: 'PARAM_TRIGGER_UNKNOWN', ...here('trigger'), message: `parameter ${p.name} triggers plan "${p.trigger}", which framework.yaml does not define` }));
    }
    const compiled = p.pattern === undefined ? undefined : compileRepoPattern(p.pattern);
    if (compiled && !compiled.ok) out.push(problem({ code: 'PARAM_PATTERN_INVALID', ...here('pattern'), message: `parameter ${p.name}: pattern is not a valid regular expression: ${compiled.reason}` }));
    if (p.minimum !== undefined && p.maximum !== undefined && p.minimum > p.maximum) {
      out.push(problem({ code: 'PARAM_RANGE_INVALID', ...here('minimum'), message: `parameter ${p.name}: minimum ${p.minimum} is greater than maximum ${p.maximum}` }));
    }
    if ((p.minimum !== undefined || p.maximum !== undefined) && p.type !== 'integer' && p.type !== 'number') {
      out.push(problem({ code: 'PARAM_RANGE_INVALID', ...here('type'), message: `parameter ${p.name}: minimum/maximum apply only to integer and number parameters` }));
    }
    if (p.default !== undefined && p.default !== null) {
      for (const f of checkParamValue(p, p.default)) out.push(problem({ code: 'PARAM_DEFAULT_INVALID', ...here('default'), message: `default: ${f.message}` }));
    }
    const { enum: _enum, pattern: _pattern, minimum: _min, maximum: _max, ...typeOnly } = p;
    for (const [j, e] of (p.enum ?? []).entries()) {
      const bad = checkParamValue(typeOnly, e);
      if (bad.length > 0) out.push(problem({ code: 'PARAM_ENUM_INVALID', ...at(src, file, [i, 'enum', j]), message: `enum value ${JSON.stringify(e)} is not of type ${p.type}` }));
    }
    if (!toggles.has(p.name) && !mentions(allText, p.name)) {
      out.push(problem({ code: 'PARAM_UNUSED', severity: 'warning', ...here('name'), message: `parameter ${p.name} is not used by any template or Toggle task` }));
    }
  });
  return out;
}

const WORD = /[A-Za-z0-9_]/;

/** Whether `name` occurs in `text` as a whole word (a plain scan: no pattern is built from repository text). */
function mentions(text: string, name: string): boolean {
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    const before = i === 0 ? '' : text[i - 1]!;
    const after = text[i + name.length] ?? '';
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}
