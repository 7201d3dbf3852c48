/** Typed errors of pod actions: each names what was asked for and what was expected. */
import { BatonError } from '../errors.js';
import type { InstanceKey } from '../plans/checkpoint.js';

const label = (i: InstanceKey): string => `${i.namespace}/${i.name}`;

export class InstanceUnknownError extends BatonError {
  constructor(instance: InstanceKey) {
    super('INSTANCE_UNKNOWN', `instance ${label(instance)} is not known to Baton in this cluster (no checkpoint ConfigMap baton-${instance.name} in namespace ${instance.namespace}); expected an instance Baton deployed`, { ...instance });
  }
}

export class PodUnknownError extends BatonError {
  constructor(instance: InstanceKey, pod: string, known: readonly string[]) {
    super('POD_UNKNOWN', `pod ${pod} does not exist in namespace ${instance.namespace}; pods of ${label(instance)}: ${known.length > 0 ? known.join(', ') : '(none)'}`, { ...instance, pod });
  }
}

export class PodNotOfInstanceError extends BatonError {
  constructor(instance: InstanceKey, pod: string, owner: string | undefined) {
    super('POD_NOT_OF_INSTANCE', `pod ${pod} does not belong to instance ${label(instance)}${owner ? ` (it belongs to ${owner})` : ' (no Baton instance owns its workload)'}`, { ...instance, pod });
  }
}

export class PodActionBusyError extends BatonError {
  constructor(instance: InstanceKey, what: string) {
    super('POD_ACTION_BUSY', `instance ${label(instance)} is busy: ${what}; try again when it has finished`, { ...instance });
  }
}
