/**
 * The simulated API server's HTTP(S) listener: authentication, then non-resource paths (version,
 * health, discovery, OpenAPI, the fault admin endpoint), then resource requests for the store.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FaultAdmin, RequestInterceptor } from '../faults/types.js';
import type { Store } from '../store/store.js';
import { handleGroup, handleGroupVersion, handleOpenApi, handleRootDiscovery, handleVersionOrHealth, isPublicPath } from './nonresource.js';
import { RegistryMemo } from './memo.js';
import { notFoundPath, readBody, sendError, sendJson, sendStatus } from './respond.js';
import { handleResource } from './resources.js';
import { parsePath } from './route.js';
import { type AccessControl, type SimUser, ADMIN_USER, accessControl, authorize, identify } from './auth/index.js';
import { LocalKubeClient, type LocalClientTuning } from './local/client.js';

export interface ApiServerOptions {
  store: Store;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** When set, every request but /version and health checks needs `Authorization: Bearer <token>` (the administrator's). */
  token?: string;
  /** More users, each with a token; requests need one of them (or an issued ServiceAccount token). */
  users?: SimUser[];
  /** Authorize every request with the RBAC objects in the store (default off: everyone may do anything). */
  rbac?: boolean;

  tls?: { key: string; cert: string };
  interceptor?: RequestInterceptor;
  faultAdmin?: FaultAdmin;
  /** Watches without timeoutSeconds end after this long (default 30 minutes), as the real server's min-request-timeout. */
  watchTimeoutMs?: number;
}

export interface ApiServer {
  url: string;
  host: string;
  port: number;
  /**
   * A client of this server for code in its own process (the simulated controllers): the
   * administrator's requests through the same checks, faults and store, without HTTP (local/client.ts).
   * Closing the server breaks its watches and refuses its later requests.
   */
  inProcessClient(tuning?: LocalClientTuning): LocalKubeClient;
  close(): Promise<void>;
}

function allUsers(options: ApiServerOptions): SimUser[] {
  const users = [...(options.users ?? [])];
  if (options.token !== undefined && options.token !== '') users.unshift({ name: 'kubernetes-admin', token: options.token, groups: ['system:masters'] });
  return users;
}

function handleAdmin(options: ApiServerOptions, pathname: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (pathname === '/baton-sim/faults') return handleFaultAdmin(options.faultAdmin, req, res);
  notFoundPath(res);
  return Promise.resolve();
}

async function handleFaultAdmin(admin: FaultAdmin | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!admin) {
    notFoundPath(res);
    return;
  }
  const raw = await readBody(req);
  let body: unknown;
  try {
    body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
  } catch {
    sendStatus(res, 400, 'BadRequest', 'the fault admin endpoint expects a JSON body');
    return;
  }
  const answer = admin.handle(req.method ?? 'GET', body);
  sendJson(res, answer.status, answer.body);
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const watchTimeoutMs = options.watchTimeoutMs ?? 30 * 60_000;
  const access: AccessControl = accessControl(options.store, allUsers(options), options.rbac ?? false);
  const ctx = { store: options.store, interceptor: options.interceptor, watchTimeoutMs, access };
  let serverAddress = '';
  const memo = new RegistryMemo(options.store.registry);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pathname = url.pathname;
    if (handleVersionOrHealth(pathname, res)) return;
    const user = await identify(access, req);
    if (user.username === 'system:anonymous' && !isPublicPath(pathname)) {
      sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
      return;
    }
    const parsed = parsePath(pathname);
    if (parsed.kind !== 'resource') authorize(access, user, { kind: 'nonResource', verb: (req.method ?? 'GET').toLowerCase() === 'get' ? 'get' : (req.method ?? '').toLowerCase(), path: pathname });
    if (pathname.startsWith('/baton-sim/')) return handleAdmin(options, pathname, req, res);
    if (parsed.kind === 'resource') return handleResource(ctx, user, req, res, parsed.path, url.searchParams);
    const types = options.store.registry.all();
    if (handleRootDiscovery(pathname, req, res, types, serverAddress, memo)) return;
    if (handleOpenApi(pathname, req, res, types, memo)) return;
    switch (parsed.kind) {
      case 'group': return handleGroup(parsed.group, res, types);
      case 'groupVersion': return handleGroupVersion(parsed.group, parsed.version, res, types);
      case 'other': return notFoundPath(res);
    }
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => sendError(res, err));
  };
  const server: Server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener) : createHttpServer(listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const locals = new Set<LocalKubeClient>();
  serverAddress = `${host}:${port}`;
  const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url, host, port,
    inProcessClient: (tuning) => {
      const client = new LocalKubeClient({ ...ctx, user: ADMIN_USER }, tuning);
      locals.add(client);
      return client;
    },
    close: () => new Promise<void>((resolve) => {
      for (const client of locals) client.close();
      memo.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
