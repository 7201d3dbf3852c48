/**
 * Where the agent's repository lives and how to authenticate to it, turned into the environment the
 * git binary needs. Credentials go through environment variables (GIT_CONFIG_COUNT/KEY/VALUE and
 * GIT_SSH_COMMAND), never the command line or an on-disk config, so they do not show in `ps` output.
 */
import { isAbsolute, resolve } from 'node:path';
import { GitRemoteRefusedError } from './errors.js';

export type RemoteAuth =
  | { kind: 'none' }
  /** HTTPS with a token: sent as basic auth (`username` defaults to `x-access-token`, as GitHub expects). */
  | { kind: 'token'; token: string; username?: string }
  /** SSH with a private key file; `knownHosts` pins host keys (else new hosts are accepted once). */
  | { kind: 'ssh'; keyFile: string; knownHosts?: string };

export interface RemoteSpec {
  url: string;
  auth: RemoteAuth;
}

/** Every environment variable Baton may hand to git; simple-git strips other `GIT_*` variables. */
export const GIT_ENV_ALLOWED = [
  'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0', 'GIT_CONFIG_KEY_1', 'GIT_CONFIG_VALUE_1',
  'GIT_SSH_COMMAND', 'GIT_SSL_CAINFO', 'GIT_CONFIG_NOSYSTEM', 'GIT_TERMINAL_PROMPT', 'GIT_ASKPASS',
] as const;

/**
 * Checks and normalises a remote: refuses option-looking URLs and `ext::`/`fd::` transports (which run
 * commands), and makes a local path absolute against `cwd`.
 */
export function normaliseRemote(url: string, cwd: string): string {
  const trimmed = url.trim();
  if (trimmed === '') throw new GitRemoteRefusedError('the repository URL is empty: pass --git URL|PATH');
  if (trimmed.startsWith('-')) throw new GitRemoteRefusedError(`refusing repository URL "${trimmed}": it starts with "-"`, { url: trimmed });
  if (/^(ext|fd)::/i.test(trimmed)) throw new GitRemoteRefusedError(`refusing repository URL "${trimmed}": the ext:: and fd:: transports run commands`, { url: trimmed });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^[^/]+@[^/]+:/.test(trimmed)) return trimmed;
  if (/^file:/i.test(trimmed)) return trimmed;
  return isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
}

/** Removes a password from a URL for logs and errors. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/]*)@/i, (_m, scheme: string, cred: string) => `${scheme}${cred.includes(':') ? `${cred.split(':')[0] ?? ''}:***` : '***'}@`);
}

/** The environment variables that carry `auth` to git. */
export function authEnv(auth: RemoteAuth): Record<string, string> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'token': {
      const basic = Buffer.from(`${auth.username ?? 'x-access-token'}:${auth.token}`).toString('base64');
      return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
    }
    case 'ssh': {
      const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
      const hosts = auth.knownHosts ? `-o UserKnownHostsFile=${quote(auth.knownHosts)} -o StrictHostKeyChecking=yes` : '-o StrictHostKeyChecking=accept-new';
      return { GIT_SSH_COMMAND: `ssh -i ${quote(auth.keyFile)} -o IdentitiesOnly=yes -o BatchMode=yes ${hosts}` };
    }
  }
}
