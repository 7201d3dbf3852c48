/**
 * Who is asking. Users come from the start options (a bearer token each); ServiceAccounts from tokens
 * the server issued through TokenRequest (`kubectl create token`): JWTs signed RS256 with a key made at
 * first use (so they do not survive a restart), carrying the real claims (`sub:
 * system:serviceaccount:<ns>:<name>`, `kubernetes.io` with the namespace and account). Without any
 * token configured, every request is the administrator, as before authentication existed.
 */
import { generateKeyPairSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** A user of the simulated cluster, as `--user` or `startCluster({ users })` declare them. */
export interface SimUser {
  name: string;
  token: string;
  /** Extra groups (everyone authenticated is also in `system:authenticated`). */
  groups?: string[];
}

export const ADMIN_USER: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
export const ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

export interface IssuedToken {
  token: string;
  expirationTimestamp: string;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function serviceAccountUser(sa: { namespace: string; name: string; uid?: string }): UserInfo {
  return {
    username: `system:serviceaccount:${sa.namespace}:${sa.name}`,
    ...(sa.uid ? { uid: sa.uid } : {}),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`, 'system:authenticated'],
  };
}

export class Authenticator {
  private keys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

  constructor(private readonly users: readonly SimUser[]) {}

  /** Whether requests must carry a token at all. */
  get required(): boolean {
    return this.users.length > 0;
  }

  /** The user a bearer token stands for, or undefined when it is unknown or expired. */
  async authenticate(token: string): Promise<UserInfo | undefined> {
    for (const u of this.users) {
      if (sameToken(u.token, token)) return { username: u.name, groups: [...new Set([...(u.groups ?? []), 'system:authenticated'])] };
    }
    if (!this.keys || token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.keys.publicKey, { issuer: ISSUER });
      const k8s = payload['kubernetes.io'] as { namespace?: string; serviceaccount?: { name?: string; uid?: string } } | undefined;
      if (!k8s?.namespace || !k8s.serviceaccount?.name) return undefined;
      return serviceAccountUser({ namespace: k8s.namespace, name: k8s.serviceaccount.name, ...(k8s.serviceaccount.uid ? { uid: k8s.serviceaccount.uid } : {}) });
    } catch {
      return undefined;
    }
  }

  /** A token for a ServiceAccount, as TokenRequest answers. */
  async issue(sa: ServiceAccountRef, audiences: string[], expirationSeconds: number, now: Date): Promise<IssuedToken> {
    this.keys ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + expirationSeconds;
    const token = await new SignJWT({ 'kubernetes.io': { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } } })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setSubject(`system:serviceaccount:${sa.namespace}:${sa.name}`)
      .setAudience(audiences.length > 0 ? audiences : [ISSUER])
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .sign(this.keys.privateKey);
    return { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }
}
