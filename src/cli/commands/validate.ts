import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerValidate(program: Command, io: CliIO): void {
  program.command('validate').description('Validate a repository, a framework or an instance').action(notImplemented(io, 'validate', 2));
}
