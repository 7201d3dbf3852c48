/**
 * `baton plan status|trigger|check`: the status subcommand reads the engine's checkpoint (and Git
 * status); trigger makes a Git commit that requests a plan. Each subcommand lives in its own file.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { registerPlanCheck } from './plan-check.js';
import { registerPlanControl } from './plan-control.js';
import { registerPlanStatus } from './plan-status.js';
import { registerPlanTrigger } from './plan-trigger.js';

export function registerPlan(program: Command, io: CliIO): void {
  const plan = program.command('plan').description('Plan status, manual plan triggers, drift checks and plan control (pause, resume, stop, retry, restart, force-complete, continue)');
  registerPlanStatus(plan, io);
  registerPlanCheck(plan, io);
  registerPlanTrigger(plan, io);
  registerPlanControl(plan, io);
}
