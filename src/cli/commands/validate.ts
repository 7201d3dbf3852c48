/**
 * `baton validate [PATH] [-o text|json]`: checks a repository (default: the current directory), one
 * framework version folder, or one instance file. Collects every problem; exit 1 when any is an error.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { DirectoryTree, Renderer, validateRepository } from '../../render/index.js';
import { findRepoRoot, scopeOf } from '../../render/paths.js';
import type { CliIO } from '../io.js';
import { formatWithSources } from './render.js';
import { AGE_KEY_FILE_HELP, cliAgeKeys } from '../age-keys.js';

interface ValidateFlags {
  output: 'text' | 'json';
  repo?: string;
  ageKeyFile?: string;
}

function parseFormat(value: string): 'text' | 'json' {
  if (value !== 'text' && value !== 'json') throw new InvalidArgumentError('expected text or json');
  return value;
}

export function registerValidate(program: Command, io: CliIO): void {
  program
    .command('validate')
    .description('Validate a repository, a framework version or an instance (every problem, located)')
    .argument('[path]', 'repository folder, frameworks/<name> (every version), frameworks/<name>/<version> folder or instance file', '.')
    .option('-o, --output <format>', 'text (shows the offending lines) or json (for CI)', parseFormat, 'text')
    .option('--repo <dir>', 'repository root (default: found from PATH)')
    .option('--age-key-file <file>', AGE_KEY_FILE_HELP)
    .action(async (path: string, flags: ValidateFlags) => {
      io.exitCode = await runValidate(io, path, flags);
    });
}

async function runValidate(io: CliIO, path: string, flags: ValidateFlags): Promise<number> {
  const abs = resolve(io.cwd, path);
  if (!existsSync(abs)) {
    io.stderr(`error: ${path}: no such file or folder\n`);
    return 1;
  }
  const root = flags.repo !== undefined ? resolve(io.cwd, flags.repo) : findRepoRoot(abs);
  if (root === undefined) {
    io.stderr(`error: ${path} is not inside a Baton repository (no baton.yaml, frameworks/ or instances/); pass --repo DIR\n`);
    return 1;
  }
  const scope = scopeOf(root, abs);
  if (typeof scope === 'string') {
    io.stderr(`error: ${scope}\n`);
    return 1;
  }
  const keys = await cliAgeKeys(io, flags.ageKeyFile);
  if (keys === undefined) return 1;
  const tree = new DirectoryTree(root);
  const renderer = new Renderer();
  try {
    const report = await validateRepository(tree, renderer, scope, { values: { keys, lenient: true } });
    if (flags.output === 'json') {
      io.stdout(`${JSON.stringify({ ok: report.ok, root, frameworks: report.frameworks, instances: report.instances, problems: report.problems }, null, 2)}\n`);
    } else {
      const what =
        scope.kind === 'repository' ? `${report.frameworks} framework version(s), ${report.instances} instance(s)`
        : scope.kind === 'framework' ? `framework ${scope.name} ${scope.version}`
        : scope.kind === 'frameworkVersions' ? `${report.frameworks} version(s) of framework ${scope.name}`
        : `instance ${scope.file}`;
      const text = await formatWithSources(tree, report.problems);
      (report.ok ? io.stdout : io.stderr)(`${report.problems.length > 0 ? text : ''}${report.ok ? 'ok' : 'invalid'}: checked ${what}\n`);
    }
    return report.ok ? 0 : 1;
  } finally {
    await renderer.close();
  }
}
