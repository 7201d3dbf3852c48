/** The simulated nodes: what they look like, and which one a new pod goes to. */
import type { KubeObject } from '../../../kube/object.js';
import { kubeTime, nameOf, records, spec, status, str } from '../runtime/meta.js';

export function nodeName(index: number): string {
  return `sim-node-${index}`;
}

export function nodeObject(index: number): KubeObject {
  const name = nodeName(index);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'sim' } },
    spec: { podCIDR: `10.244.${index + 1}.0/24`, podCIDRs: [`10.244.${index + 1}.0/24`] },
  };
}

export function nodeStatus(index: number, now: number): Record<string, unknown> {
  const time = kubeTime(now);
  const condition = (type: string, ok: boolean, reason: string, message: string): Record<string, unknown> => ({
    type,
    status: ok ? 'True' : 'False',
    reason,
    message,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  const capacity = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    capacity,
    allocatable: capacity,
    conditions: [
      condition('MemoryPressure', false, 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      condition('DiskPressure', false, 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', false, 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      condition('Ready', true, 'KubeletReady', 'kubelet is posting ready status (simulated)'),
    ],
    addresses: [
      { type: 'InternalIP', address: `172.18.0.${index + 2}` },
      { type: 'Hostname', address: nodeName(index) },
    ],
    nodeInfo: {
      kubeletVersion: 'v1.33.0',
      kubeProxyVersion: 'v1.33.0',
      containerRuntimeVersion: 'containerd://1.7.0',
      operatingSystem: 'linux',
      architecture: 'amd64',
      osImage: 'Baton simulated node',
      kernelVersion: '6.1.0',
      machineID: '',
      systemUUID: '',
      bootID: '',
    },
  };
}

export function nodeAddress(node: KubeObject): string {
  const internal = records(status(node).addresses).find((a) => a.type === 'InternalIP');
  return str(internal?.address) ?? '172.18.0.2';
}

export function isSchedulable(node: KubeObject): boolean {
  if (spec(node).unschedulable === true) return false;
  const ready = records(status(node).conditions).find((c) => c.type === 'Ready');
  return ready === undefined || ready.status === 'True';
}

/** The schedulable node with the fewest pods (ties: by name), as a spreading scheduler would. */
export function pickNode(nodes: KubeObject[], pods: KubeObject[]): KubeObject | undefined {
  const load = new Map<string, number>();
  for (const pod of pods) {
    const n = str(spec(pod).nodeName);
    if (n !== undefined) load.set(n, (load.get(n) ?? 0) + 1);
  }
  return nodes
    .filter(isSchedulable)
    .sort((a, b) => (load.get(nameOf(a)) ?? 0) - (load.get(nameOf(b)) ?? 0) || nameOf(a).localeCompare(nameOf(b)))[0];
}
