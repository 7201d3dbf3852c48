/** The kinds the simulated controllers watch, by the short name the controllers use. */
export const KINDS = {
  Pod: { apiVersion: 'v1', kind: 'Pod' },
  Node: { apiVersion: 'v1', kind: 'Node' },
  Service: { apiVersion: 'v1', kind: 'Service' },
  Endpoints: { apiVersion: 'v1', kind: 'Endpoints' },
  PersistentVolumeClaim: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  PersistentVolume: { apiVersion: 'v1', kind: 'PersistentVolume' },
  StorageClass: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' },
  ReplicaSet: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  Deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  StatefulSet: { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  DaemonSet: { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  ControllerRevision: { apiVersion: 'apps/v1', kind: 'ControllerRevision' },
  Job: { apiVersion: 'batch/v1', kind: 'Job' },
  CronJob: { apiVersion: 'batch/v1', kind: 'CronJob' },
  HorizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
} as const;

export type KindName = keyof typeof KINDS;
