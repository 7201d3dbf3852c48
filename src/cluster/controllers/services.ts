/**
 * Services: a LoadBalancer gets an ingress address (from 198.51.100.0/24, a documentation range that
 * nothing answers on), and every Service with a selector gets Endpoints that follow its pods: ready
 * pods in `addresses`, the others in `notReadyAddresses`, ports resolved by number or container port name.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller, ControllerContext } from './runtime/controller.js';
import { deepEqual, nameOf, record, records, spec, status, str } from './runtime/meta.js';
import { isReady } from './runtime/pods.js';
import { mapSelector } from './runtime/selector.js';

function resolvePort(target: unknown, port: unknown, pod: KubeObject | undefined): number | undefined {
  if (typeof target === 'number') return target;
  if (typeof target === 'string' && /^\d+$/.test(target)) return Number(target);
  if (typeof target === 'string' && pod) {
    for (const c of records(spec(pod).containers)) {
      const found = records(c.ports).find((p) => p.name === target);
      if (found && typeof found.containerPort === 'number') return found.containerPort;
    }
    return undefined;
  }
  return typeof port === 'number' ? port : undefined;
}

export function endpointsFor(svc: KubeObject, pods: KubeObject[]): Record<string, unknown> {
  const select = mapSelector(spec(svc).selector);
  const members = select ? pods.filter((p) => p.metadata.deletionTimestamp === undefined && select(p.metadata.labels) && str(status(p).podIP)) : [];
  const address = (p: KubeObject): Record<string, unknown> => ({
    ip: status(p).podIP,
    nodeName: spec(p).nodeName,
    targetRef: { kind: 'Pod', namespace: p.metadata.namespace, name: nameOf(p), uid: p.metadata.uid },
  });
  const ready = members.filter(isReady).map(address);
  const notReady = members.filter((p) => !isReady(p)).map(address);
  const ports = records(spec(svc).ports)
    .map((p) => {
      const port = resolvePort(p.targetPort, p.port, members[0]);
      const out: Record<string, unknown> = { port, protocol: str(p.protocol) ?? 'TCP' };
      if (str(p.name)) out.name = p.name;
      return out;
    })
    .filter((p) => p.port !== undefined);
  if (members.length === 0) return {};
  const subset: Record<string, unknown> = { ports };
  if (ready.length > 0) subset.addresses = ready;
  if (notReady.length > 0) subset.notReadyAddresses = notReady;
  return { subsets: [subset] };
}

function servicesSelecting(pod: KubeObject, ctx: ControllerContext): string[] {
  const ns = pod.metadata.namespace ?? '';
  return ctx
    .informer('Service')
    .list(ns)
    .filter((svc) => mapSelector(spec(svc).selector)?.(pod.metadata.labels) === true)
    .map((svc) => `${ns}/${nameOf(svc)}`);
}

export function serviceController(): Controller {
  let nextAddress = 1;
  return {
    name: 'service',
    kind: 'Service',
    watches: [
      { kind: 'Pod', keys: servicesSelecting },
      { kind: 'Endpoints', keys: (ep) => [`${ep.metadata.namespace ?? ''}/${nameOf(ep)}`] },
    ],
    async reconcile(key, ctx) {
      const svc = ctx.informer('Service').get(key);
      const endpoints = ctx.informer('Endpoints').get(key);
      if (!svc) {
        if (endpoints && endpoints.metadata.annotations?.['sim.baton.dev/managed'] === 'true') await ctx.api.delete(endpoints);
        return undefined;
      }
      if (str(spec(svc).type) === 'LoadBalancer' && records(record(status(svc).loadBalancer).ingress).length === 0) {
        const ip = `198.51.100.${nextAddress++ % 254 || 254}`;
        ctx.events.emit(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer', 'service-controller');
        await ctx.api.patchStatus(svc, { ...status(svc), loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } });
        ctx.events.emit(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer', 'service-controller');
      }
      if (!mapSelector(spec(svc).selector)) return undefined;
      const body = endpointsFor(svc, ctx.informer('Pod').list(svc.metadata.namespace));
      if (endpoints) {
        if (deepEqual(endpoints.subsets ?? [], body.subsets ?? [])) return undefined;
        const { subsets: _old, ...rest } = endpoints;
        await ctx.api.update({ ...rest, ...body });
        return undefined;
      }
      await ctx.api.create({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: nameOf(svc), namespace: svc.metadata.namespace ?? 'default', labels: svc.metadata.labels ?? {}, annotations: { 'sim.baton.dev/managed': 'true' } },
        ...body,
      });
      return undefined;
    },
  };
}
