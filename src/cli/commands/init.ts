/**
 * `baton init [DIR]`: creates a GitOps repository from the template Baton ships (repo-template/ and the
 * catalog frameworks/) and runs `git init` in it. Refuses a non-empty DIR so nothing is overwritten.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { errorMessage } from '../../errors.js';
import type { CliIO } from '../io.js';
import { copyTemplateRepository, installationRoot } from '../template-repo.js';

export function registerInit(program: Command, io: CliIO): void {
  program
    .command('init')
    .description('Create a new GitOps repository from the template and git init it')
    .argument('[dir]', 'folder to create (must be empty or absent)', '.')
    .action(async (dir: string) => {
      io.exitCode = await runInit(io, resolve(io.cwd, dir));
    });
}

async function runInit(io: CliIO, target: string): Promise<number> {
  const root = installationRoot();
  if (root === undefined || readdirSync(join(root, 'repo-template')).length === 0) {
    io.stderr('error: the repository template (repo-template/ and frameworks/) is missing from this installation\n');
    return 1;
  }
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) {
      io.stderr(`error: ${target} exists and is not a folder\n`);
      return 1;
    }
    if (readdirSync(target).length > 0) {
      io.stderr(`error: ${target} is not empty; baton init only creates new repositories\n`);
      return 1;
    }
  }
  try {
    await mkdir(target, { recursive: true });
    await copyTemplateRepository(root, target);
    // The agent watches `main` by default: start there whatever the user's git default branch is.
    await promisify(execFile)('git', ['init', '--quiet', '--initial-branch=main', target], { timeout: 30_000 });
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return 1;
  }
  io.stdout(`created a Baton repository in ${target}\nnext: edit instances/, then run: baton validate ${target}\n`);
  return 0;
}
