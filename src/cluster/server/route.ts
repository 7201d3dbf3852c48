/**
 * Turns a request path into what it asks for, following kube-apiserver's RequestInfoFactory:
 * `/api/v1/namespaces/ns/pods/web/status`, `/apis/apps/v1/deployments`, legacy `/api/v1/watch/...`,
 * and `/api/v1/namespaces/<name>` meaning the namespace object itself.
 */
export interface ResourcePath {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The path used the legacy `/watch/` prefix. */
  legacyWatch: boolean;
}

export type ParsedPath =
  | { kind: 'resource'; path: ResourcePath }
  /** `/api/v1` or `/apis/<g>/<v>`: the resource list. */
  | { kind: 'groupVersion'; group: string; version: string }
  /** `/apis/<g>`: one group. */
  | { kind: 'group'; group: string }
  | { kind: 'other' };

/** Subresources of a namespace that must not be read as `namespaces/<ns>/<resource>`. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parsePath(pathname: string): ParsedPath {
  const parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else if (parts[0] === 'apis' && parts.length === 2) {
    return { kind: 'group', group: parts[1] ?? '' };
  } else {
    return { kind: 'other' };
  }
  if (rest.length === 0) return { kind: 'groupVersion', group, version };
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
    if (rest.length === 0) return { kind: 'other' };
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  if (rest.length > 3) return { kind: 'other' };
  const path: ResourcePath = { group, version, resource: rest[0] ?? '', legacyWatch };
  // `namespaces/<name>` names the namespace itself: it is cluster-scoped.
  if (namespace !== undefined && path.resource !== 'namespaces') path.namespace = namespace;
  if (rest[1] !== undefined) path.name = rest[1];
  if (rest[2] !== undefined) path.subresource = rest[2];
  return { kind: 'resource', path };
}

/** Go's strconv.ParseBool, which the real server uses for `watch`, `allowWatchBookmarks`, `force`... */
export function parseBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False', ''].includes(value)) return false;
  return undefined;
}

/** The field manager the real server derives from the User-Agent: its first path segment. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  return prefix.slice(0, 128) || 'unknown';
}
