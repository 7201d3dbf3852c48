import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerPlanStatus(plan: Command, io: CliIO): void {
  plan.command('status').description('Show the plan status of an instance').action(notImplemented(io, 'plan status', 5));
}
