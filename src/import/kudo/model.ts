/**
 * KUDO's template variables in Baton terms: `.Name` is `instance.name`, `.Params.X` is `params.X`, ...
 * KUDO passed scalar parameters as strings; their views keep the Baton type (so a whole YAML value keeps
 * it) and are marked, so comparisons with strings still compare the text KUDO compared.
 */
import type { Val } from '../gotemplate/functions.js';
import type { RootModel } from '../gotemplate/translate.js';
import type { KudoParam } from './params.js';

const FIELDS: Record<string, Val> = {
  Name: { js: 'instance.name', t: 'string' },
  Namespace: { js: 'instance.namespace', t: 'string' },
  OperatorName: { js: 'framework.name', t: 'string' },
  OperatorVersion: { js: 'framework.version', t: 'string' },
  AppVersion: { js: 'framework.appVersion', t: 'string' },
  PlanName: { js: 'plan.name', t: 'string' },
  PhaseName: { js: 'plan.phase', t: 'string' },
  StepName: { js: 'plan.step', t: 'string' },
};

/** The object a Pipe task's output is kept in (docs/composition.md): `<instance>-pipe-<task>`. */
function pipeObject(task: string): Val {
  return { js: `(instance.name + ${JSON.stringify(`-pipe-${task}`)})`, t: 'string' };
}

/** `pipeKeys`: KUDO's `.Pipes.<key>` -> the Pipe task whose output object that key names. */
export function kudoRootModel(params: readonly KudoParam[], pipeKeys: ReadonlyMap<string, string> = new Map()): RootModel {
  const byName = new Map(params.map((p) => [p.decl.name, p]));
  const view = (p: KudoParam): Val => ({
    js: `params.${p.decl.name}`,
    t: p.decl.type === 'integer' ? 'int' : p.decl.type === 'number' ? 'float' : p.decl.type === 'boolean' ? 'bool' : p.decl.type === 'array' ? 'list' : p.decl.type === 'object' ? 'map' : 'string',
    param: { name: p.decl.name, optional: p.optional },
  });
  return {
    field(name) {
      if (name === 'Params') return { js: '$root.Params', t: 'map', params: true };
      if (name === 'Pipes') {
        const js = `{ ${[...pipeKeys].map(([k, task]) => `${JSON.stringify(k)}: ${pipeObject(task).js}`).join(', ')} }`;
        return { js, t: 'map', members: (key) => (pipeKeys.has(key) ? pipeObject(pipeKeys.get(key)!) : `.Pipes.${key}: no Pipe task of operator.yaml has the key ${key}${pipeKeys.size > 0 ? ` (keys: ${[...pipeKeys.keys()].join(', ')})` : ''}`) };
      }
      return FIELDS[name];
    },
    param(name) {
      const p = byName.get(name);
      return p ? view(p) : undefined;
    },
    untranslatable() {
      return undefined;
    },
    rootObject() {
      const ps = params.map((p) => {
        const scalar = p.decl.type === 'integer' || p.decl.type === 'number' || p.decl.type === 'boolean';
        return `${p.decl.name}: ${scalar ? `String(params.${p.decl.name})` : `params.${p.decl.name}`}`;
      });
      const fields = Object.entries(FIELDS).map(([k, v]) => `${k}: ${v.js}`);
      return `{ ${[...fields, `Params: { ${ps.join(', ')} }`].join(', ')} }`;
    },
  };
}
