import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerTest(program: Command, io: CliIO): void {
  program.command('test').description('Run framework test cases against the simulated cluster').action(notImplemented(io, 'test', 5));
}
