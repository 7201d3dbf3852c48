/**
 * `baton new framework NAME [--kind statefulset|deployment] [--framework-version V] [--image I] [--port P] [--repo DIR]`:
 * writes a framework version skeleton (src/scaffold/framework.ts) under DIR/frameworks/NAME/V. Refuses to
 * overwrite an existing version folder.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { isDnsLabel, isSemver } from '../../render/index.js';
import { frameworkFiles, type WorkloadKind } from '../../scaffold/framework.js';
import type { CliIO } from '../io.js';

interface NewFlags {
  kind: WorkloadKind;
  frameworkVersion: string;
  image: string;
  port: number;
  repo: string;
}

function parseKind(value: string): WorkloadKind {
  const v = value.toLowerCase();
  if (v !== 'statefulset' && v !== 'deployment') throw new InvalidArgumentError('expected statefulset or deployment');
  return v;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('expected a port number 1-65535');
  return n;
}

export function registerNew(program: Command, io: CliIO): void {
  const cmd = program.command('new').description('Create new things from a template (framework skeletons)');
  cmd
    .command('framework')
    .description('Write a framework version skeleton: parameters, workload, Service, ConfigMap, PodDisruptionBudget, plans, a test case, a README')
    .argument('<name>', 'framework name (DNS-1123 label)')
    .option('--kind <kind>', 'workload kind: statefulset or deployment', parseKind, 'statefulset')
    .option('--framework-version <version>', 'framework version (semver)', '0.1.0')
    .option('--image <image>', 'container image of the workload', 'nginxinc/nginx-unprivileged:1.27')
    .option('--port <port>', 'container port', parsePort, 8080)
    .option('--repo <dir>', 'repository root', '.')
    .action(async (name: string, flags: NewFlags) => {
      io.exitCode = await runNew(io, name, flags);
    });
}

async function runNew(io: CliIO, name: string, flags: NewFlags): Promise<number> {
  if (!isDnsLabel(name)) {
    io.stderr(`error: framework name "${name}" must be a DNS-1123 label (lowercase letters, digits, "-")\n`);
    return 2;
  }
  if (!isSemver(flags.frameworkVersion)) {
    io.stderr(`error: version "${flags.frameworkVersion}" is not a semantic version (e.g. 0.1.0)\n`);
    return 2;
  }
  const root = resolve(io.cwd, flags.repo);
  const dir = join(root, 'frameworks', name, flags.frameworkVersion);
  if (existsSync(dir)) {
    io.stderr(`error: ${dir} exists; baton new never overwrites a framework version\n`);
    return 1;
  }
  const files = frameworkFiles({ name, version: flags.frameworkVersion, kind: flags.kind, image: flags.image, port: flags.port });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text, { flag: 'wx' });
  }
  io.stdout(`created frameworks/${name}/${flags.frameworkVersion} (${flags.kind}): ${Object.keys(files).length} files\nnext: baton validate frameworks/${name} && baton test frameworks/${name}/${flags.frameworkVersion}\n`);
  return 0;
}
