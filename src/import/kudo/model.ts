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

export function kudoRootModel(params: readonly KudoParam[]): RootModel {
  const byName = new Map(params.map((p) => [p.decl.name, p]));
  const view = (p: KudoParam): Val => ({
    js: `params.${p.decl.name}`,
    t: p.decl.type === 'integer' ? 'int' : p.decl.type === 'number' ? 'float' : p.decl.type === 'boolean' ? 'bool' : p.decl.type === 'array' ? 'list' : p.decl.type === 'object' ? 'map' : 'string',
    param: { name: p.decl.name, optional: p.optional },
  });
  return {
    field(name) {
      if (name === 'Params') return { js: '$root.Params', t: 'map', params: true };
      return FIELDS[name];
    },
    param(name) {
      const p = byName.get(name);
      return p ? view(p) : undefined;
    },
    untranslatable(name) {
      return name === 'Pipes' ? '.Pipes (files of Pipe tasks) has no Baton counterpart: Pipe tasks are not translated' : undefined;
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
