/**
 * Plan arguments against their declaration in framework.yaml (`plans.<name>.args`): every argument
 * given must be declared, required ones must be given, each must read as its type (and be one of its
 * `enum`), and defaults fill in the rest. Runs before any template renders, so a mistyped `--arg` stops
 * `render`, `apply`, a trigger or a schedule before anything touches the cluster.
 */
import type { Framework } from './model.js';
import { problem, type Problem } from './problems.js';
import type { PlanArgDecl } from './schemas.js';

export type PlanArgsCheck = { ok: true; args: Record<string, string> } | { ok: false; problems: Problem[] };

const READS_AS: Record<PlanArgDecl['type'], { test: (text: string) => boolean; expected: string }> = {
  string: { test: () => true, expected: 'text' },
  integer: { test: (t) => /^-?\d+$/.test(t.trim()), expected: 'an integer such as 3' },
  number: { test: (t) => t.trim() !== '' && Number.isFinite(Number(t)), expected: 'a number such as 1.5' },
  boolean: { test: (t) => t === 'true' || t === 'false', expected: 'true or false' },
};

/**
 * Arguments Baton itself reads on any plan, so a framework never declares them: `rotate-generated`
 * (compose/generated/resolve.ts ROTATE_ARG, which checks its value with its own located errors).
 */
const BATON_ARGS: ReadonlySet<string> = new Set(['rotate-generated']);

export function checkPlanArgs(fw: Framework, planName: string, given: Readonly<Record<string, string>>): PlanArgsCheck {
  const plan = fw.decl.plans[planName];
  if (!plan) return { ok: true, args: { ...given } };
  const src = fw.frameworkSource;
  const declared = plan.args ?? [];
  const at = (path: (string | number)[], found: { code: string; message: string }): Problem => problem({ ...found, file: src.file, path, ...src.locate(path, true) });
  const argsPath = plan.args !== undefined ? ['plans', planName, 'args'] : ['plans', planName];
  const known = declared.length > 0 ? declared.map((d) => d.name).join(', ') : 'none';
  const problems: Problem[] = [];
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const index = declared.findIndex((d) => d.name === name);
    const decl = declared[index];
    if (decl === undefined && BATON_ARGS.has(name)) {
      args[name] = value;
      continue;
    }
    if (decl === undefined) {
      problems.push(at(argsPath, { code: 'PLAN_ARG_UNKNOWN', message: `argument ${name}: plan ${planName} of framework ${fw.name} ${fw.version} does not take it (arguments: ${known})` }));
      continue;
    }
    const path = ['plans', planName, 'args', index];
    const reads = READS_AS[decl.type];
    if (!reads.test(value)) {
      problems.push(at(path, { code: 'PLAN_ARG_TYPE', message: `argument ${name}: expected ${reads.expected} (type ${decl.type}), got ${JSON.stringify(value)}` }));
    } else if (decl.enum !== undefined && !decl.enum.some((e) => String(e) === value.trim())) {
      problems.push(at(path, { code: 'PLAN_ARG_ENUM', message: `argument ${name}: expected one of ${decl.enum.map((e) => JSON.stringify(String(e))).join(', ')}, got ${JSON.stringify(value)}` }));
    } else {
      args[name] = value;
    }
  }
  for (const [index, decl] of declared.entries()) {
    if (decl.name in given) continue;
    if (decl.default !== undefined) args[decl.name] = String(decl.default);
    else if (decl.required) {
      problems.push(at(['plans', planName, 'args', index], { code: 'PLAN_ARG_MISSING', message: `argument ${decl.name} is required by plan ${planName}${decl.description ? ` (${decl.description})` : ''}: pass --arg ${decl.name}=VALUE` }));
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, args };
}

/** Values for the required arguments without a default, so `baton validate` can render every plan. */
export function sampleArgs(fw: Framework, planName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of fw.decl.plans[planName]?.args ?? []) {
    if (d.default !== undefined || !d.required) continue;
    out[d.name] = d.enum !== undefined ? String(d.enum[0]) : d.type === 'boolean' ? 'false' : d.type === 'string' ? 'sample' : '0';
  }
  return out;
}

/** A declaration that contradicts itself: a default or an enum value that does not read as the type, a name twice. */
export function planArgDeclarationProblems(fw: Framework): Problem[] {
  const src = fw.frameworkSource;
  const problems: Problem[] = [];
  for (const [planName, plan] of Object.entries(fw.decl.plans)) {
    const seen = new Set<string>();
    for (const [index, decl] of (plan.args ?? []).entries()) {
      const path = ['plans', planName, 'args', index];
      const at = (message: string): Problem => problem({ code: 'PLAN_ARG_DECLARATION', file: src.file, path, ...src.locate(path, true), message });
      if (seen.has(decl.name)) problems.push(at(`plan ${planName} declares argument ${decl.name} twice`));
      seen.add(decl.name);
      const reads = READS_AS[decl.type];
      for (const value of [...(decl.default !== undefined ? [decl.default] : []), ...(decl.enum ?? [])]) {
        if (!reads.test(String(value))) problems.push(at(`argument ${decl.name}: ${JSON.stringify(value)} is not ${reads.expected} (type ${decl.type})`));
      }
      if (decl.default !== undefined && decl.enum !== undefined && !decl.enum.some((e) => String(e) === String(decl.default))) {
        problems.push(at(`argument ${decl.name}: default ${JSON.stringify(decl.default)} is not one of its enum values`));
      }
    }
  }
  return problems;
}
