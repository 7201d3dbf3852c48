/**
 * Node failure, as a test or a demo asks for it: the annotation `sim.baton.dev/node-down: "true"` on a
 * Node stops its simulated kubelet. The node lifecycle controller then does what it does when a real
 * kubelet stops posting status: the node's Ready condition becomes Unknown (NodeStatusUnknown) and it
 * gets the `node.kubernetes.io/unreachable` taints, so nothing new is scheduled there; the pods on it
 * are marked Ready=False with a NodeNotReady event, and stay (a StatefulSet pod keeps its name and
 * claims until it is deleted). Removing the annotation brings the node back: Ready, untainted, and
 * its pods Ready again. Pods are not evicted after a toleration period: delete them to move them.
 */
import type { KubeObject } from '../../../kube/object.js';
import { SIM_NODE_DOWN } from '../../annotations.js';
import type { Controller, ControllerContext } from '../runtime/controller.js';
import { kubeTime, nameOf, records, spec, status, str } from '../runtime/meta.js';

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

export function isNodeDown(node: KubeObject | undefined): boolean {
  return node?.metadata.annotations?.[SIM_NODE_DOWN] === 'true';
}

function readyCondition(node: KubeObject): Record<string, unknown> | undefined {
  return records(status(node).conditions).find((c) => c.type === 'Ready');
}

/** The conditions and taints a node has when its kubelet is (not) posting status. */
export function nodeHealth(node: KubeObject, down: boolean, now: number): { conditions: Record<string, unknown>[]; taints: Record<string, unknown>[] } {
  const time = kubeTime(now);
  const conditions = records(status(node).conditions).map((c) => {
    if (down) {
      if (c.status === 'Unknown') return c;
      return { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: time };
    }
    if (c.status !== 'Unknown') return c;
    const ok = c.type === 'Ready';
    const reason = { Ready: 'KubeletReady', MemoryPressure: 'KubeletHasSufficientMemory', DiskPressure: 'KubeletHasNoDiskPressure', PIDPressure: 'KubeletHasSufficientPID' }[String(c.type)] ?? 'KubeletReady';
    return { ...c, status: ok ? 'True' : 'False', reason, message: ok ? 'kubelet is posting ready status (simulated)' : `kubelet reports ${String(c.type)} is False`, lastHeartbeatTime: time, lastTransitionTime: time };
  });
  const others = records(spec(node).taints).filter((t) => t.key !== UNREACHABLE_TAINT);
  const taints = down ? [...others, { key: UNREACHABLE_TAINT, effect: 'NoSchedule', timeAdded: time }, { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: time }] : others;
  return { conditions, taints };
}

export function nodeLifecycleController(): Controller {
  return {
    name: 'node-lifecycle',
    kind: 'Node',
    async reconcile(key, ctx) {
      const node = ctx.informer('Node').get(key);
      if (!node || readyCondition(node) === undefined) return undefined;
      const down = isNodeDown(node);
      const wasDown = readyCondition(node)?.status === 'Unknown';
      if (down === wasDown && records(spec(node).taints).some((t) => t.key === UNREACHABLE_TAINT) === down) return undefined;
      const { conditions, taints } = nodeHealth(node, down, ctx.clock.now());
      const updated = await ctx.api.patch(node, { spec: { taints: taints.length > 0 ? taints : null } });
      await ctx.api.patchStatus(updated, { ...status(updated), conditions });
      ctx.events.emit(node, 'Normal', down ? 'NodeNotReady' : 'NodeReady', down ? `Node ${nameOf(node)} status is now: NodeNotReady` : `Node ${nameOf(node)} status is now: NodeReady`, 'node-controller');
      return undefined;
    },
  };
}

/** The pods on a node, as keys: the kubelet looks at them again when the node changes. */
export function podsOnNode(node: KubeObject, ctx: ControllerContext): string[] {
  return ctx.informer('Pod').list().filter((p) => str(spec(p).nodeName) === nameOf(node)).map((p) => `${p.metadata.namespace ?? ''}/${nameOf(p)}`);
}

/** The status of a pod whose node stopped reporting: not Ready (the rest as last reported). */
export function notReadyOnLostNode(pod: KubeObject, now: number): Record<string, unknown> {
  const time = kubeTime(now);
  const conditions = records(status(pod).conditions).map((c) => (c.type === 'Ready' && c.status !== 'False' ? { ...c, status: 'False', reason: undefined, message: undefined, lastTransitionTime: time } : c)).map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)));
  return { ...status(pod), conditions };
}
