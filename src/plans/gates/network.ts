/** Services and Ingresses: ready when reachable, i.e. when a load balancer address was assigned where one is needed. */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { list, str } from './fields.js';
import { done, waiting, type GateResult } from './types.js';

function addresses(obj: KubeObject): string[] {
  return list(obj, 'status.loadBalancer.ingress')
    .filter(isRecord)
    .map((i) => str(i, 'ip') ?? str(i, 'hostname') ?? '')
    .filter((a) => a !== '');
}

export function serviceGate(obj: KubeObject): GateResult {
  const type = str(obj, 'spec.type') ?? 'ClusterIP';
  if (type !== 'LoadBalancer') return done(`${type} service`);
  const addrs = addresses(obj);
  return addrs.length > 0 ? done(`load balancer at ${addrs.join(', ')}`) : waiting('waiting for a load balancer address');
}

export function ingressGate(obj: KubeObject): GateResult {
  const addrs = addresses(obj);
  return addrs.length > 0 ? done(`ingress at ${addrs.join(', ')}`) : waiting('waiting for the ingress controller to publish an address');
}
