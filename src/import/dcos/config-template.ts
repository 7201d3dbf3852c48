/**
 * A task's config template (Mustache, rendered by the SDK's `bootstrap` in the task) -> EJS code that
 * builds the file's text. Variables resolve through the task's environment: its `env`, TASKCFG_ options,
 * ports and the SDK's variables. Sections become conditions on the value; variables that only exist when
 * the task runs (POD_INSTANCE_INDEX, TASK_NAME) cannot be known to a ConfigMap shared by every pod: they
 * are kept as `${NAME}` for the command to expand, and reported.
 */
import type { ParamDecl } from '../../render/schemas.js';
import type { FindingLog } from '../report.js';
import { locate } from '../report.js';
import { exprJs, paramsOf, type Expr } from './expr.js';
import { parseMustache } from './mustache.js';

type Token = [string, string, number, number, Token[]?];

/** Variables the SDK gives a running task that no template rendered ahead of time can know. */
const RUNTIME = new Set(['TASK_NAME', 'POD_INSTANCE_INDEX', 'FRAMEWORK_HOST', 'LIBPROCESS_IP', 'STATSD_UDP_HOST', 'STATSD_UDP_PORT', 'HOST']);

export interface ConfigTemplateInput {
  file: string;
  text: string;
  /** The variables the task sees. */
  env: Map<string, Expr>;
  params: ReadonlyMap<string, ParamDecl>;
  used: Set<string>;
  log: FindingLog;
}

/** A JavaScript expression that evaluates to the rendered file, or undefined on a syntax error. */
export function configTemplateJs(input: ConfigTemplateInput): string | undefined {
  const tokens = parseMustache(input.file, input.text, input.log) as Token[] | undefined;
  if (!tokens) return undefined;
  const reported = new Set<string>();
  const value = (name: string, pos: number): string => {
    const e = input.env.get(name);
    if (e) {
      for (const p of paramsOf(e)) input.used.add(p);
      return exprJs(e, input.params, 'string');
    }
    const at = locate(input.file, input.text, pos);
    if (RUNTIME.has(name) || name.startsWith('MESOS_')) {
      if (!reported.has(name)) input.log.untranslated('IMPORT_DCOS_CONFIG_RUNTIME_VARIABLE', at, `${name} is only known to a running task, not to a ConfigMap shared by every pod: the file keeps \${${name}} for the task's command to expand (e.g. with envsubst)`);
      reported.add(name);
      return JSON.stringify(`\${${name}}`);
    }
    if (!reported.has(name)) input.log.mapped('IMPORT_DCOS_CONFIG_UNSET', at, `${name} is not in the task's environment (as rendered by bootstrap, an unset variable is empty and its sections are left out)`);
    reported.add(name);
    return "''";
  };
  const stmts = (ts: Token[]): string =>
    ts
      .map(([type, name, start, , children]) => {
        if (type === 'text') return `__s += ${JSON.stringify(name)};`;
        if (type === 'name' || type === '&') return `__s += ${value(name, start)};`;
        if (type === '#' || type === '^') {
          const v = value(name, start);
          const truth = `(${v} !== '' && String(${v}).toLowerCase() !== 'false')`;
          return `if (${type === '#' ? truth : `!${truth}`}) { ${stmts(children ?? [])} }`;
        }
        if (type === '>') input.log.error('IMPORT_MUSTACHE_PARTIAL', locate(input.file, input.text, start), `partials ({{> ${name}}}) are not supported in config templates`);
        return '';
      })
      .join(' ');
  return `(() => { let __s = ''; ${stmts(tokens)} return __s; })()`;
}
