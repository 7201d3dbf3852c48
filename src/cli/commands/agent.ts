import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerAgent(program: Command, io: CliIO): void {
  program.command('agent').description('The GitOps sync loop').action(notImplemented(io, 'agent', 6));
}
