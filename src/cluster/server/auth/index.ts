/**
 * Access control of the simulated API server: authentication (bearer tokens of the configured users
 * and of issued ServiceAccount tokens) and, with `rbac`, authorization of every request by the RBAC
 * objects in the store. Without users every request is the administrator; without `rbac` every
 * authenticated request is allowed.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import { ADMIN_USER, ANONYMOUS, Authenticator, type SimUser, type UserInfo } from './identity.js';
import { type RequestAttributes, forbiddenMessage, isAllowed } from './rbac.js';

export { Authenticator, ADMIN_USER, type SimUser, type UserInfo } from './identity.js';
export type { RequestAttributes } from './rbac.js';

export interface AccessControl {
  store: Store;
  auth: Authenticator;
  rbac: boolean;
}

export function accessControl(store: Store, users: readonly SimUser[], rbac: boolean): AccessControl {
  return { store, auth: new Authenticator(users), rbac };
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? '';
  return header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
}

/** The requester: the administrator when no tokens are configured, anonymous without a (valid) token. */
export async function identify(ac: AccessControl, req: IncomingMessage): Promise<UserInfo> {
  if (!ac.auth.required) return ADMIN_USER;
  const token = bearer(req);
  return (token !== undefined ? await ac.auth.authenticate(token) : undefined) ?? ANONYMOUS;
}

/** Throws the real 403 Forbidden Status when RBAC denies the request. */
export function authorize(ac: AccessControl, user: UserInfo, attrs: RequestAttributes): void {
  if (!ac.rbac || isAllowed(ac.store, user, attrs)) return;
  const details = attrs.kind === 'resource' ? { ...(attrs.name ? { name: attrs.name } : {}), ...(attrs.group ? { group: attrs.group } : {}), kind: attrs.resource } : undefined;
  throw new ApiError(403, 'Forbidden', forbiddenMessage(user, attrs), details);
}
