/**
 * The status a real API server returns for a freshly created object: the Go status struct at its zero
 * value, serialised. Fields without `omitempty` show as 0 (a StatefulSet's `replicas`), the rest are
 * absent, so `status` is at least `{}` and clients reading `status.readyReplicas` find the object.
 */
const ZERO: Record<string, Record<string, unknown>> = {
  'apps/Deployment': {},
  'apps/ReplicaSet': { replicas: 0 },
  'apps/StatefulSet': { replicas: 0, availableReplicas: 0 },
  'apps/DaemonSet': { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
  '/ReplicationController': { replicas: 0 },
  'batch/Job': {},
  'batch/CronJob': {},
  'policy/PodDisruptionBudget': { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  'networking.k8s.io/Ingress': { loadBalancer: {} },
  'autoscaling/HorizontalPodAutoscaler': { desiredReplicas: 0 },
  '/ResourceQuota': {},
};

/** A fresh copy of the zero status of a built-in kind (`group/Kind`), or undefined when it has none. */
export function zeroStatus(kind: string): Record<string, unknown> | undefined {
  const zero = ZERO[kind];
  return zero === undefined ? undefined : structuredClone(zero);
}
