/**
 * Everything that is not a resource: version, health, discovery and OpenAPI. Discovery and OpenAPI
 * are computed from the registry on each request, so CRDs show up (and vanish) immediately.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceType } from '../store/types.js';
import { parseAccept, wantsAggregated } from './accept.js';
import { aggregatedDiscovery, aggregatedMediaType, apiGroupList, apiResourceList, apiVersions, groupVersions } from './discovery.js';
import { OPENAPI_V2_PROTO_MEDIA_TYPE, openApiV2Json, openApiV2Protobuf, openApiV3Document, openApiV3Index } from './openapi.js';
import type { RegistryMemo } from './memo.js';
import { notFoundPath, sendBytes, sendJson } from './respond.js';

export const SERVER_VERSION = {
  major: '1', minor: '33', gitVersion: 'v1.33.0', gitCommit: 'baton-simulated', gitTreeState: 'clean',
  buildDate: '2025-04-23T00:00:00Z', goVersion: 'go1.24.2', compiler: 'gc', platform: 'linux/amd64',
};

const HEALTH = new Set(['/healthz', '/readyz', '/livez']);

/** Paths answered without a token, as a real cluster's system:public-info-viewer allows. */
export function isPublicPath(pathname: string): boolean {
  return pathname === '/version' || HEALTH.has(pathname.replace(/\/$/, '')) || pathname.startsWith('/healthz/') || pathname.startsWith('/readyz/') || pathname.startsWith('/livez/');
}

export function handleVersionOrHealth(pathname: string, res: ServerResponse): boolean {
  if (pathname === '/version') {
    sendJson(res, 200, SERVER_VERSION);
    return true;
  }
  if (isPublicPath(pathname)) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('ok');
    return true;
  }
  return false;
}

/** `/api` and `/apis`, legacy or aggregated by Accept. */
export function handleRootDiscovery(pathname: string, req: IncomingMessage, res: ServerResponse, types: readonly ResourceType[], serverAddress: string, memo: RegistryMemo): boolean {
  if (pathname !== '/api' && pathname !== '/apis') return false;
  const aggregated = wantsAggregated(parseAccept(req.headers.accept));
  if (aggregated) {
    const body = memo.get(`aggregated ${pathname} ${aggregated}`, () => aggregatedDiscovery(types, pathname === '/api' ? 'core' : 'groups', aggregated));
    sendJson(res, 200, body, aggregatedMediaType(aggregated));
  } else sendJson(res, 200, pathname === '/api' ? apiVersions(serverAddress) : apiGroupList(types));
  return true;
}

export function handleGroup(group: string, res: ServerResponse, types: readonly ResourceType[]): void {
  const versions = groupVersions(types).get(group);
  if (!versions || group === '') {
    notFoundPath(res);
    return;
  }
  const list = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: list, preferredVersion: list[0] });
}

export function handleGroupVersion(group: string, version: string, res: ServerResponse, types: readonly ResourceType[]): void {
  const body = apiResourceList(types, group, version);
  if (body) sendJson(res, 200, body);
  else notFoundPath(res);
}

export function handleOpenApi(pathname: string, req: IncomingMessage, res: ServerResponse, types: readonly ResourceType[], memo: RegistryMemo): boolean {
  if (pathname === '/openapi/v2') {
    const accept = req.headers.accept ?? '';
    if (accept.includes('protobuf')) sendBytes(res, 200, memo.get('openapi v2 protobuf', () => openApiV2Protobuf(types)), OPENAPI_V2_PROTO_MEDIA_TYPE);
    else sendJson(res, 200, memo.get('openapi v2 json', () => openApiV2Json(types)));
    return true;
  }
  if (pathname === '/openapi/v3' || pathname === '/openapi/v3/') {
    sendJson(res, 200, memo.get('openapi v3 index', () => openApiV3Index(types)));
    return true;
  }
  const m = /^\/openapi\/v3\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(pathname);
  if (!m) return false;
  const [group, version] = m[1] !== undefined ? ['', m[1]] : [m[2] ?? '', m[3] ?? ''];
  const doc = memo.get(`openapi v3 ${group}/${version}`, () => openApiV3Document(types, group, version));
  if (doc) sendJson(res, 200, doc);
  else notFoundPath(res);
  return true;
}
