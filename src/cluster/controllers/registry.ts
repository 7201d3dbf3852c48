/** Every simulated controller, in the order they are started. */
import { cronJobController } from './cronjob.js';
import { daemonSetController } from './daemonset.js';
import { deploymentController } from './deployment/index.js';
import { jobController } from './job.js';
import { kubeletController } from './kubelet/index.js';
import { nodeLifecycleController } from './kubelet/lifecycle.js';
import { replicaSetController } from './replicaset.js';
import type { Controller } from './runtime/controller.js';
import { serviceController } from './services.js';
import { hpaController } from './hpa.js';
import { statefulSetController } from './statefulset/index.js';
import { claimController, volumeController } from './volumes.js';

export function allControllers(): Controller[] {
  return [
    kubeletController(),
    nodeLifecycleController(),
    replicaSetController(),
    deploymentController(),
    statefulSetController(),
    daemonSetController(),
    jobController(),
    cronJobController(),
    claimController(),
    volumeController(),
    serviceController(),
    hpaController(),
  ];
}
