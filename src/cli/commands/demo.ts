import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerDemo(program: Command, io: CliIO): void {
  program.command('demo').description('The demo: template repository, simulated cluster and agent').action(notImplemented(io, 'demo', 6));
}
