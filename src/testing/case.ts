/**
 * Framework test cases (`frameworks/<name>/<version>/tests/*.yaml`): an instance's values and a list of
 * steps, each running a plan (chosen by the selection rules, or named) and asserting its result and the
 * objects the cluster then holds. `baton test` runs them against the simulated cluster.
 */
import { z } from 'zod';
import { hasErrors, readText, type FileTree, type Problem } from '../render/index.js';
import { parseYamlFile, schemaProblems } from '../render/source.js';

const objectRef = z.strictObject({ apiVersion: z.string().min(1), kind: z.string().min(1), name: z.string().min(1) });

const stepSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /** The instance's values from this step on (absent: unchanged). */
  params: z.record(z.string(), z.unknown()).optional(),
  /** The framework version the instance uses from this step on (default: the version the case belongs to). */
  version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/, 'a semantic version').optional(),
  /** Run this plan (a one-shot request); absent: the plan the selection rules choose. */
  plan: z.string().min(1).optional(),
  args: z.record(z.string(), z.string()).optional(),
  /** Remove the instance (runs `cleanup`, then deletes what it owns). */
  remove: z.literal(true).optional(),
  expect: z.enum(['COMPLETE', 'FATAL_ERROR', 'REFUSED', 'NOTHING', 'REMOVED', 'INVALID']).default('COMPLETE'),
  /** Objects that must exist, matched partially: every field given must have the given value. */
  assert: z.array(z.record(z.string(), z.unknown())).default([]),
  /** Objects that must not exist. */
  absent: z.array(objectRef).default([]),
});

export const testCaseSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    /** Default `test`. */
    instance: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a DNS-1123 label').max(53).default('test'),
    /** Default `baton-test-<file name>`. */
    namespace: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a DNS-1123 label').max(63).optional(),
    params: z.record(z.string(), z.unknown()).default({}),
    steps: z.array(stepSchema).min(1),
  })
  .describe('Baton framework test case: frameworks/<name>/<version>/tests/<case>.yaml');

export type TestCaseDecl = z.output<typeof testCaseSchema>;
export type TestStepDecl = TestCaseDecl['steps'][number];

export interface TestCase {
  /** `frameworks/<name>/<version>/tests/<file>` */
  file: string;
  name: string;
  namespace: string;
  decl: TestCaseDecl;
}

export type LoadedCases = { ok: true; cases: TestCase[] } | { ok: false; problems: Problem[] };

/** Loads every case of one framework version, collecting all problems. */
export async function loadTestCases(tree: FileTree, frameworkDir: string): Promise<LoadedCases> {
  const entries = (await tree.list(`${frameworkDir}/tests`)).filter((e) => e.type === 'file' && /\.ya?ml$/.test(e.name));
  const cases: TestCase[] = [];
  const problems: Problem[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
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
    cases.push({ file, name: result.data.name ?? stem, namespace, decl: result.data });
  }
  return hasErrors(problems) ? { ok: false, problems } : { ok: true, cases };
}
