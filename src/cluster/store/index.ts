/**
 * The simulated API server's storage: Kubernetes API semantics over an in-memory (optionally
 * persisted) object store. The HTTP layer (src/cluster/server) is its only intended caller.
 */
export { Store } from './store.js';
export { ResourceRegistry, type RegistryListener } from './registry.js';
export { ApiError, notFound, alreadyExists, conflict, staleConflict, invalid, badRequest, methodNotAllowed, gone, forbidden, type Cause } from './errors.js';
export { apiVersionOf, qualifiedResource } from './types.js';
export type {
  DeleteOptions, DeleteResult, FieldValidation, ListOptions, ListResult, PatchResult, PatchType, PrinterColumn, PropagationPolicy,
  ResourceType, ScaleObject, ScaleSubresource, StoreOptions, StoreWatchEvent, Subresource, UpdateOptions, WatchEventType, WatchHandle,
  WatchOptions, WriteOptions,
} from './types.js';
export { parseLabelSelector, parseFieldSelector, labelSelectorString } from './selectors.js';
