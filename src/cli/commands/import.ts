/**
 * `baton import kudo <operator-folder>` and `baton import dcos <svc.yml>`: translate a KUDO operator or a
 * DC/OS SDK service into a Baton framework version, check it as `baton validate` would, print the import
 * report, and write the version into the repository only when the import succeeded (or with --force).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { Renderer } from '../../render/index.js';
import { compareSemver } from '../../render/versions.js';
import {
  checkImport,
  existingVersions,
  formatImportJson,
  formatImportMarkdown,
  formatImportText,
  hasImportErrors,
  importDcos,
  importKudo,
  readPackageDir,
  refusal,
  writeImport,
  type ImportOutcome,
  type ImportResult,
} from '../../import/index.js';
import type { CliIO } from '../io.js';
import { deprecatedAlias } from '../conventions.js';

type ReportFormat = 'text' | 'markdown' | 'json';

interface CommonFlags {
  repo: string;
  force?: boolean;
  dryRun?: boolean;
  output: ReportFormat;
}

interface DcosFlags extends CommonFlags {
  package?: string;
  options?: string;
  name?: string;
  version?: string;
}

function parseFormat(value: string): ReportFormat {
  if (value !== 'text' && value !== 'markdown' && value !== 'json') throw new InvalidArgumentError('expected text, markdown or json');
  return value;
}

function common(cmd: Command, io: CliIO): Command {
  cmd.option('--repo <dir>', 'the Baton repository folder to write frameworks/<name>/<version> into', '.');
  return deprecatedAlias(cmd, io, { flags: '--into <dir>', attribute: 'into' }, { flag: '--repo', attribute: 'repo' })
    .option('--force', 'write although the import has errors (with the report), or replace an existing version')
    .option('--dry-run', 'print the report, write nothing')
    .option('-o, --output <format>', 'report format: text, markdown or json', parseFormat, 'text');
}

export function registerImport(program: Command, io: CliIO): void {
  const cmd = program.command('import').description('Import a KUDO operator or a DC/OS SDK service as a Baton framework version');
  common(
    cmd
      .command('kudo')
      .description('Translate a KUDO operator package (operator.yaml, params.yaml, templates/) into a framework version')
      .argument('<operator-folder>', 'the folder holding operator.yaml'),
    io,
  ).action(async (folder: string, flags: CommonFlags) => {
    const abs = resolve(io.cwd, folder);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      io.stderr(`error: ${folder}: no such folder\n`);
      io.exitCode = 1;
      return;
    }
    io.exitCode = await finish(io, importKudo(readPackageDir(abs, folder)), flags);
  });
  common(
    cmd
      .command('dcos')
      .description('Translate a DC/OS SDK service (svc.yml and its config templates) into a framework version')
      .argument('<svc.yml>', 'the service spec; config templates are read from its folder')
      .option('--package <universe-folder>', 'the universe package (config.json, marathon.json.mustache): typed parameters with defaults and descriptions')
      .option('--options <options.json>', 'the options an installation used (needs --package)')
      .option('--name <name>', 'framework name (default: package.json, else svc.yml name)')
      .option('--version <version>', 'framework version (default: package.json, else 1.0.0)'),
    io,
  ).action(async (svc: string, flags: DcosFlags) => {
    const abs = resolve(io.cwd, svc);
    const missing = [svc, flags.package, flags.options].find((p) => p !== undefined && !existsSync(resolve(io.cwd, p)));
    if (missing !== undefined || !statSync(abs).isFile()) {
      io.stderr(`error: ${missing ?? svc}: no such file or folder\n`);
      io.exitCode = 1;
      return;
    }
    const beside = readPackageDir(dirname(abs), dirname(svc));
    const result = importDcos({
      svc: { file: basename(svc), text: readFileSync(abs, 'utf8') },
      files: beside.files,
      ...(flags.package !== undefined ? { pkg: readPackageDir(resolve(io.cwd, flags.package), flags.package) } : {}),
      ...(flags.options !== undefined ? { options: { file: basename(flags.options), text: readFileSync(resolve(io.cwd, flags.options), 'utf8') } } : {}),
      ...(flags.name !== undefined ? { name: flags.name } : {}),
      ...(flags.version !== undefined ? { version: flags.version } : {}),
    });
    result.source = svc;
    io.exitCode = await finish(io, result, flags);
  });
}

/** Notes how the new version relates to the versions already in the repository. */
function noteVersions(result: ImportResult, repo: string): void {
  const versions = existingVersions(repo, result.framework.name).filter((v) => v !== result.framework.version);
  const latest = versions[0];
  if (latest === undefined || result.framework.name === '') return;
  const at = { file: `frameworks/${result.framework.name}`, line: 0, column: 0 };
  if (compareSemver(result.framework.version, latest) > 0) {
    result.findings.push({ level: 'mapped', code: 'IMPORT_NEW_VERSION', at, message: `a new version beside ${versions.join(', ')}: instances move to it when their file names it (Baton runs upgrade, else update, else deploy)` });
  } else {
    result.findings.push({ level: 'mapped', code: 'IMPORT_OLDER_VERSION', at, message: `older than ${latest}, which the repository has: instances on ${latest} cannot move to it (Baton refuses lower versions)` });
  }
}

async function finish(io: CliIO, result: ImportResult, flags: CommonFlags): Promise<number> {
  const repo = resolve(io.cwd, flags.repo);
  if (result.files.length > 0) {
    const renderer = new Renderer();
    try {
      await checkImport(result, renderer, repo);
    } finally {
      await renderer.close();
    }
  }
  noteVersions(result, repo);
  const outcome: ImportOutcome = { result };
  const why = flags.dryRun ? 'dry run (--dry-run)' : refusal(result, repo, flags.force === true);
  if (why === undefined) outcome.written = writeImport(result, repo, { force: flags.force === true, reportMarkdown: formatImportMarkdown({ ...outcome, written: `frameworks/${result.framework.name}/${result.framework.version}` }) });
  else outcome.refused = why;
  const text = flags.output === 'json' ? formatImportJson(outcome) : flags.output === 'markdown' ? formatImportMarkdown(outcome) : formatImportText(outcome);
  io.stdout(text);
  if (hasImportErrors(result.findings)) return 1;
  return outcome.written !== undefined || flags.dryRun ? 0 : 1;
}
