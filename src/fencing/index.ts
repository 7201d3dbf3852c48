/** Fencing: a leader acts only while its lease is surely its own (see lease-fence.ts). */
export { FenceLostError, LeaseFence, unfenced, type Fence, type LeaseFenceOptions } from './lease-fence.js';
export { fencedClient, fencedClients } from './fenced-client.js';
