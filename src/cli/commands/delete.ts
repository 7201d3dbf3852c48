import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerDelete(program: Command, io: CliIO): void {
  program.command('delete').description('Run cleanup and remove everything an instance owns').action(notImplemented(io, 'delete', 5));
}
