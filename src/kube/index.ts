/** The Kubernetes client Baton uses: the interface, its HTTP implementation and typed errors. */
export type * from './client.js';
export type { KubeObject, ObjectMeta, ObjectRef, OwnerReference } from './object.js';
export { refOf, refKey, refLabel, groupOf, isRecord } from './object.js';
export { KubeApiError, KubeTransportError, KubeConfigError, type KubeStatus } from './errors.js';
export { createKubeClient, HttpKubeClient, type KubeClientOptions, type ClientTuning } from './http-client.js';
