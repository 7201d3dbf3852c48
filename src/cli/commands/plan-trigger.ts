import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notImplemented } from './not-implemented.js';

export function registerPlanTrigger(plan: Command, io: CliIO): void {
  plan.command('trigger').description('Request a plan through a Git commit').action(notImplemented(io, 'plan trigger', 6));
}
