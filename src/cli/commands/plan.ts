import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerPlan(program: Command, io: CliIO): void {
  program.command('plan').description('Plan status and manual triggers').action(notImplemented(io, 'plan', 6));
}
