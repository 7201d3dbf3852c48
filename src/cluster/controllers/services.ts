/**
 * Services: a LoadBalancer gets an ingress address (from 198.51.100.0/24, a documentation range that
 * nothing answers on), and every Service with a selector gets Endpoints that follow its pods: ready
 * pods in `addresses`, the others in `notReadyAddresses`, ports resolved by number or container port name.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller, ControllerContext } from './runtime/controller.js';
import { controllerRef, deepEqual, nameOf, record, records, spec, status, str } from './runtime/meta.js';
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

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const SLICE_CONTROLLER = 'endpointslice-controller.k8s.io';

/** The EndpointSlice content for a Service's pods (one IPv4 slice, as the endpointslice controller keeps it). */
export function sliceFor(svc: KubeObject, pods: KubeObject[]): Record<string, unknown> {
  const select = mapSelector(spec(svc).selector);
  const members = select ? pods.filter((p) => select(p.metadata.labels) && str(status(p).podIP)) : [];
  const endpoints = members.map((p) => {
    const terminating = p.metadata.deletionTimestamp !== undefined;
    return {
      addresses: [status(p).podIP],
      conditions: { ready: isReady(p) && !terminating, serving: isReady(p), terminating },
      ...(str(spec(p).nodeName) ? { nodeName: spec(p).nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: p.metadata.namespace, name: nameOf(p), uid: p.metadata.uid },
    };
  });
  const ports = records(spec(svc).ports)
    .map((p) => {
      const port = resolvePort(p.targetPort, p.port, members[0]);
      return { ...(str(p.name) ? { name: p.name } : { name: '' }), port, protocol: str(p.protocol) ?? 'TCP' };
    })
    .filter((p) => p.port !== undefined);
  return { addressType: 'IPv4', endpoints, ports: members.length > 0 ? ports : [] };
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
      { kind: 'EndpointSlice', keys: (slice) => (slice.metadata.labels?.[SERVICE_NAME_LABEL] ? [`${slice.metadata.namespace ?? ''}/${slice.metadata.labels[SERVICE_NAME_LABEL]}`] : []) },
    ],
    async reconcile(key, ctx) {
      const svc = ctx.informer('Service').get(key);
      const endpoints = ctx.informer('Endpoints').get(key);
      if (!svc) {
        if (endpoints && endpoints.metadata.annotations?.['sim.baton.dev/managed'] === 'true') await ctx.api.delete(endpoints);
        // Slices are owned by the Service: the garbage collector removes them.
        return undefined;
      }
      if (str(spec(svc).type) === 'LoadBalancer' && records(record(status(svc).loadBalancer).ingress).length === 0) {
        const ip = `198.51.100.${nextAddress++ % 254 || 254}`;
        ctx.events.emit(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer', 'service-controller');
        await ctx.api.patchStatus(svc, { ...status(svc), loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } });
        ctx.events.emit(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer', 'service-controller');
      }
      if (!mapSelector(spec(svc).selector)) return undefined;
      await reconcileSlice(svc, ctx);
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

/** Creates or updates the Service's EndpointSlice (`<service>-<random>`, labelled with the service name). */
async function reconcileSlice(svc: KubeObject, ctx: ControllerContext): Promise<void> {
  const ns = svc.metadata.namespace ?? 'default';
  const body = sliceFor(svc, ctx.informer('Pod').list(ns));
  const existing = ctx.informer('EndpointSlice').list(ns).find((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === nameOf(svc) && s.metadata.labels?.[MANAGED_BY_LABEL] === SLICE_CONTROLLER);
  if (existing) {
    if (deepEqual(existing.endpoints ?? [], body.endpoints) && deepEqual(existing.ports ?? [], body.ports)) return;
    await ctx.api.update({ ...existing, ...body });
    return;
  }
  await ctx.api.create({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${nameOf(svc)}-`,
      namespace: ns,
      labels: { ...(svc.metadata.labels ?? {}), [SERVICE_NAME_LABEL]: nameOf(svc), [MANAGED_BY_LABEL]: SLICE_CONTROLLER },
      ownerReferences: [controllerRef(svc)],
    },
    ...body,
  });
}
