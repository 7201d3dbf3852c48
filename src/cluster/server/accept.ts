/**
 * Accept-header negotiation for the few alternative representations the API server offers:
 * aggregated discovery, `meta.k8s.io/v1` Tables and PartialObjectMetadata. Everything else is JSON.
 */
import type { AggregatedVersion } from './discovery.js';

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((x) => x.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
    }
    return { type: type.toLowerCase(), params };
  });
}

const isJson = (m: MediaRange): boolean => m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*';

/** The first aggregated discovery version the client accepts, in its order of preference. */
export function wantsAggregated(ranges: readonly MediaRange[]): AggregatedVersion | undefined {
  for (const m of ranges) {
    if (m.type === 'application/json' && m.params.g === 'apidiscovery.k8s.io' && m.params.as === 'APIGroupDiscoveryList') {
      if (m.params.v === 'v2' || m.params.v === 'v2beta1') return m.params.v;
    }
    if (isJson(m) && m.params.as === undefined) return undefined;
  }
  return undefined;
}

export type ObjectView = 'object' | 'table' | 'metadata';

/** Table or PartialObjectMetadata(List) when asked before plain JSON, as kubectl get and metadata informers do. */
export function objectView(ranges: readonly MediaRange[]): ObjectView {
  for (const m of ranges) {
    if (m.params.g === 'meta.k8s.io' && (m.params.v === 'v1' || m.params.v === 'v1beta1')) {
      if (m.params.as === 'Table') return 'table';
      if (m.params.as === 'PartialObjectMetadata' || m.params.as === 'PartialObjectMetadataList') return 'metadata';
    }
    if (isJson(m) && m.params.as === undefined) return 'object';
  }
  return 'object';
}
