/**
 * `baton render <instance-file> [--plan NAME] [--arg K=V]... [-o yaml|json] [--repo DIR]`: prints the
 * batches the engine would execute, in order, with sensitive values masked. Exit 1 when it does not render.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { DirectoryTree, Renderer, formatProblems, renderInstancePlan, readText, type Problem } from '../../render/index.js';
import { findRepoRoot, treePath } from '../../render/paths.js';
import { planToJson, planToYaml } from '../../render/print.js';
import type { CliIO } from '../io.js';
import { AGE_KEY_FILE_HELP, cliAgeKeys } from '../age-keys.js';

interface RenderFlags {
  plan: string;
  arg: string[];
  output: 'yaml' | 'json';
  repo?: string;
  ageKeyFile?: string;
}

export function collectArg(value: string, previous: string[]): string[] {
  if (!/^[^=]+=/.test(value)) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return [...previous, value];
}

function parseFormat(value: string): 'yaml' | 'json' {
  if (value !== 'yaml' && value !== 'json') throw new InvalidArgumentError('expected yaml or json');
  return value;
}

export function registerRender(program: Command, io: CliIO): void {
  program
    .command('render')
    .description('Render a plan of an instance into ordered batches (what the agent would apply)')
    .argument('<instance-file>', 'instances/<namespace>/<instance>.yaml')
    .option('--plan <name>', 'plan to render', 'deploy')
    .option('--arg <key=value>', 'one-shot plan argument, reaching templates as plan.args (repeatable)', collectArg, [])
    .option('-o, --output <format>', 'yaml (a stream with phase/step comments) or json (the plan value)', parseFormat, 'yaml')
    .option('--repo <dir>', 'repository root (default: the repository that contains the file)')
    .option('--age-key-file <file>', AGE_KEY_FILE_HELP)
    .action(async (file: string, flags: RenderFlags) => {
      io.exitCode = await runRender(io, file, flags);
    });
}

async function runRender(io: CliIO, file: string, flags: RenderFlags): Promise<number> {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) {
    io.stderr(`error: ${file}: no such file\n`);
    return 1;
  }
  const root = flags.repo !== undefined ? resolve(io.cwd, flags.repo) : findRepoRoot(path);
  if (root === undefined) {
    io.stderr(`error: ${file} is not inside a Baton repository; pass --repo DIR\n`);
    return 1;
  }
  const tree = new DirectoryTree(root);
  const renderer = new Renderer();
  try {
    const args = Object.fromEntries(flags.arg.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
    const keys = await cliAgeKeys(io, flags.ageKeyFile);
    if (keys === undefined) return 1;
    // Like validate: values it cannot read (no key, valuesFrom) are rendered as placeholders, with a warning.
    const result = await renderInstancePlan(tree, treePath(root, path), { plan: flags.plan, args, renderer, values: { keys, lenient: true } });
    if (result.problems.length > 0) io.stderr(await formatWithSources(tree, result.problems));
    if (!result.ok) return 1;
    io.stdout(flags.output === 'json' ? planToJson(result.plan, result.sensitiveValues) : planToYaml(result.plan, result.sensitiveValues));
    return 0;
  } finally {
    await renderer.close();
  }
}

/** Formats problems showing each offending line (templates and YAML files read through the tree). */
export async function formatWithSources(tree: DirectoryTree, problems: readonly Problem[]): Promise<string> {
  const sources = new Map<string, string>();
  for (const file of new Set(problems.map((p) => p.file))) {
    const text = await readText(tree, file).catch(() => undefined);
    if (text !== undefined) sources.set(file, text);
  }
  return formatProblems(problems, { sources });
}
