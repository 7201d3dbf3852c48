/**
 * A self-signed certificate for `--tls`. node:crypto cannot issue X.509 certificates, so this calls the
 * `openssl` CLI; machines without it get a clear error, and plain HTTP remains the default.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatonError } from '../../errors.js';

export interface TlsMaterial {
  key: string;
  cert: string;
}

export class TlsUnavailableError extends BatonError {
  constructor(cause: unknown) {
    super('CLUSTER_TLS_UNAVAILABLE', 'cannot generate a TLS certificate: the openssl command is required for --tls (run without --tls for plain HTTP on loopback)', {}, { cause });
  }
}

export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A P-256 certificate valid for a year for localhost and the given IP address. */
export function generateSelfSigned(host: string): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'baton-tls-'));
  try {
    const san = /^[\d.]+$|:/.test(host) ? `IP:${host},DNS:localhost` : `DNS:${host},DNS:localhost,IP:127.0.0.1`;
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '365',
      '-subj', '/CN=baton-simulated-cluster', '-addext', `subjectAltName=${san}`,
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch (err) {
    throw new TlsUnavailableError(err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
