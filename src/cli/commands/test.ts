/**
 * `baton test [PATH] [--case NAME] [--kubeconfig F] [--context C] [--keep] [--assert-timeout S] [-o text|json]`: runs the
 * framework test cases under `frameworks/<name>/<version>/tests/` against the simulated cluster (started
 * in-process for the run) or, with --kubeconfig/--context, a real one. Each case gets its own namespace,
 * deleted afterwards unless --keep. Exit 0 when every case passes, 1 otherwise.
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { startCluster, type Cluster } from '../../cluster/index.js';
import { errorMessage } from '../../errors.js';
import { createKubeClient, type HttpKubeClient } from '../../kube/index.js';
import { DirectoryTree, Renderer, frameworkDir, problemLocation, type Problem } from '../../render/index.js';
import { findRepoRoot, treePath } from '../../render/paths.js';
import { loadTestCases, type TestCase } from '../../render/index.js';
import { frameworksAt, type FrameworkVersion } from '../../testing/discover.js';
import { runTestCase, type CaseResult, type StepResult } from '../../testing/runner.js';
import type { CliIO } from '../io.js';

interface TestFlags {
  case?: string;
  kubeconfig?: string;
  context?: string;
  keep?: boolean;
  assertTimeout: number;
  output: 'text' | 'json';
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds');
  return n;
}

function parseOutput(value: string): 'text' | 'json' {
  if (value !== 'text' && value !== 'json') throw new InvalidArgumentError('expected text or json');
  return value;
}

export function registerTest(program: Command, io: CliIO): void {
  program
    .command('test')
    .description('Run framework test cases (frameworks/<name>/<version>/tests/*.yaml) against the simulated cluster')
    .argument('[path]', 'repository, frameworks/<name> or frameworks/<name>/<version> folder', '.')
    .option('--case <name>', 'run only the case with this name (or file name without .yaml)')
    .option('--kubeconfig <file>', 'run against this cluster instead of a simulated one')
    .option('--context <name>', 'kubeconfig context (implies a real cluster)')
    .option('--keep', 'keep each case namespace afterwards')
    .option('--assert-timeout <seconds>', 'how long asserted objects may take to match after a step', parseSeconds, 10)
    .option('-o, --output <format>', 'text or json', parseOutput, 'text')
    .action(async (path: string, flags: TestFlags) => {
      io.exitCode = await runTests(io, path, flags);
    });
}

interface Selected {
  framework: FrameworkVersion;
  cases: TestCase[];
}

async function runTests(io: CliIO, path: string, flags: TestFlags): Promise<number> {
  const abs = resolve(io.cwd, path);
  const root = findRepoRoot(abs);
  if (root === undefined) return notFound(io, `${path} is not inside a Baton repository`);
  const tree = new DirectoryTree(root);
  const targets = await frameworksAt(tree, treePath(root, abs));
  if (typeof targets === 'string') return notFound(io, targets);
  const selected: Selected[] = [];
  const problems: Problem[] = [];
  for (const framework of targets) {
    const loaded = await loadTestCases(tree, frameworkDir(framework.name, framework.version));
    if (!loaded.ok) problems.push(...loaded.problems);
    else selected.push({ framework, cases: loaded.cases.filter((c) => flags.case === undefined || c.name === flags.case || c.file.endsWith(`/${flags.case}.yaml`)) });
  }
  for (const p of problems) io.stderr(`${problemLocation(p)}: ${p.code}: ${p.message}\n`);
  if (problems.length > 0) return 1;
  const total = selected.reduce((n, s) => n + s.cases.length, 0);
  if (total === 0) {
    io.stderr(`no test cases found under ${path}${flags.case ? ` named ${flags.case}` : ''}\n`);
    return 1;
  }
  const useReal = flags.kubeconfig !== undefined || flags.context !== undefined;
  let cluster: Cluster | undefined;
  let client: HttpKubeClient | undefined;
  const renderer = new Renderer();
  try {
    if (!useReal) cluster = await startCluster({ timing: { podStartDelayMs: 20, readyDelayMs: 20 } });
    client = await createKubeClient(
      cluster
        ? { kubeconfigPath: cluster.kubeconfigPath }
        : { ...(flags.kubeconfig !== undefined ? { kubeconfigPath: resolve(io.cwd, flags.kubeconfig) } : {}), ...(flags.context !== undefined ? { context: flags.context } : {}) },
    );
    const results: CaseResult[] = [];
    for (const { framework, cases } of selected) {
      for (const testCase of cases) {
        if (flags.output === 'text') io.stdout(`${framework.name} ${framework.version}: ${testCase.name}\n`);
        const result = await runTestCase({ tree, framework, testCase, client, renderer, assertTimeoutMs: flags.assertTimeout * 1000, onStep: (s) => flags.output === 'text' && io.stdout(stepLine(s)) });
        results.push(result);
        if (flags.output === 'text') io.stdout(`  ${result.passed ? 'PASS' : 'FAIL'} in ${(result.durationMs / 1000).toFixed(1)}s\n`);
        if (!flags.keep) await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: testCase.namespace }).catch(() => undefined);
      }
    }
    const failed = results.filter((r) => !r.passed).length;
    if (flags.output === 'json') io.stdout(`${JSON.stringify({ passed: results.length - failed, failed, cases: results }, null, 2)}\n`);
    else io.stdout(`${results.length - failed} passed, ${failed} failed\n`);
    return failed === 0 ? 0 : 1;
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return 1;
  } finally {
    client?.close();
    await renderer.close();
    await cluster?.stop();
  }
}

function stepLine(s: StepResult): string {
  const head = `  ${s.passed ? 'ok  ' : 'FAIL'} ${s.name}: ${s.outcome}${s.passed ? '' : ` (${s.message})`}\n`;
  return s.passed ? head : `${head}${s.failures.map((f) => `       ${f}\n`).join('')}`;
}

/** A path that is not what the command needs: a failure of the input (1), not of the command line. */
function notFound(io: CliIO, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 1;
}
