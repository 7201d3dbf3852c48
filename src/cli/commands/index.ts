/**
 * The registry of subcommands. Each module adds its command(s) to the program; keep one file per
 * command so work on one never touches another.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { registerValidate } from './validate.js';
import { registerRender } from './render.js';
import { registerInit } from './init.js';
import { registerCluster } from './cluster.js';
import { registerApply } from './apply.js';
import { registerDelete } from './delete.js';
import { registerPlan } from './plan.js';
import { registerHistory } from './history.js';
import { registerAgent } from './agent.js';
import { registerPreview } from './preview.js';
import { registerTest } from './test.js';
import { registerDemo } from './demo.js';
import { registerRbac } from './rbac.js';
import { registerNew } from './new.js';
import { registerImport } from './import.js';
import { registerPod } from './pod.js';

export type RegisterCommand = (program: Command, io: CliIO) => void;

export const commands: RegisterCommand[] = [
  registerInit,
  registerNew,
  registerValidate,
  registerRender,
  registerPreview,
  registerApply,
  registerDelete,
  registerPlan,
  registerPod,
  registerHistory,
  registerAgent,
  registerCluster,
  registerTest,
  registerRbac,
  registerDemo,
  registerImport,
];
