import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerHistory(program: Command, io: CliIO): void {
  program.command('history').description('Operations history from git log').action(notImplemented(io, 'history', 6));
}
