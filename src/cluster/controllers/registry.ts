/** Every simulated controller, in the order they are started. */
import { deploymentController } from './deployment/index.js';
import { kubeletController } from './kubelet/index.js';
import { replicaSetController } from './replicaset.js';
import type { Controller } from './runtime/controller.js';

export function allControllers(): Controller[] {
  return [kubeletController(), replicaSetController(), deploymentController()];
}
