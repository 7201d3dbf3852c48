/**
 * Framework test cases (`frameworks/<name>/<version>/tests/*.yaml`) as files: loading with located
 * problems, and the checks `baton validate` makes. `baton test` (src/testing/) runs them.
 */
import type { Framework } from './model.js';
import { hasErrors, problem, type Problem } from './problems.js';
import { testCaseSchema, type TestCaseDecl } from './schemas.js';
import { parseYamlFile, schemaProblems, type ParsedYaml } from './source.js';
import { readText, type FileTree } from './tree.js';

export interface TestCase {
  /** `frameworks/<name>/<version>/tests/<file>` */
  file: string;
  name: string;
  namespace: string;
  decl: TestCaseDecl;
  source: ParsedYaml;
}

export type LoadedCases = { ok: true; cases: TestCase[]; problems: Problem[] } | { ok: false; problems: Problem[] };

/** Loads every case of one framework version, collecting all problems. */
export async function loadTestCases(tree: FileTree, frameworkDir: string): Promise<LoadedCases> {
  const entries = (await tree.list(`${frameworkDir}/tests`)).filter((e) => e.type === 'file' && /\.ya?ml$/.test(e.name));
  const cases: TestCase[] = [];
  const problems: Problem[] = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    const file = `${frameworkDir}/tests/${entry.name}`;
    const parsed = parseYamlFile(file, (await readText(tree, file)) ?? '');
    problems.push(...parsed.problems);
    if (hasErrors(parsed.problems)) continue;
    const result = testCaseSchema.safeParse(parsed.value);
    if (!result.success) {
      problems.push(...schemaProblems(parsed, result.error.issues));
      continue;
    }
    const stem = entry.name.replace(/\.ya?ml$/, '');
    const namespace = result.data.namespace ?? `baton-test-${stem.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63).replace(/-+$/, '');
    cases.push({ file, name: result.data.name ?? stem, namespace, decl: result.data, source: parsed });
  }
  return hasErrors(problems) ? { ok: false, problems } : { ok: true, cases, problems };
}

/** What `baton validate` says of a framework's test cases: schema problems and plans that do not exist. */
export async function testCaseProblems(tree: FileTree, framework: Framework): Promise<Problem[]> {
  const loaded = await loadTestCases(tree, framework.dir);
  if (!loaded.ok) return loaded.problems;
  const plans = new Set(Object.keys(framework.decl.plans));
  const problems = [...loaded.problems];
  for (const c of loaded.cases) {
    c.decl.steps.forEach((step, i) => {
      if (step.plan === undefined || plans.has(step.plan) || step.version !== undefined) return;
      const path = ['steps', i, 'plan'];
      problems.push(problem({ code: 'TEST_PLAN_UNKNOWN', file: c.file, path, ...c.source.locate(path), message: `plan "${step.plan}" is not defined by ${framework.name} ${framework.version} (plans: ${[...plans].join(', ')})` }));
    });
  }
  return problems;
}
