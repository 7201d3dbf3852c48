/**
 * `baton plan status|trigger|history`: the status subcommand reads the engine's checkpoint (and Git
 * status); trigger makes a Git commit that requests a plan. Each subcommand lives in its own file.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { registerPlanStatus } from './plan-status.js';
import { registerPlanTrigger } from './plan-trigger.js';

export function registerPlan(program: Command, io: CliIO): void {
  const plan = program.command('plan').description('Plan status and manual plan triggers');
  registerPlanStatus(plan, io);
  registerPlanTrigger(plan, io);
}
