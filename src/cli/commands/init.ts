import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerInit(program: Command, io: CliIO): void {
  program.command('init').description('Create a new GitOps repository from the template').action(notImplemented(io, 'init', 2));
}
