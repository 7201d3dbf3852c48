/**
 * Writing answers: JSON bodies, `Status` objects for errors (the shape kubectl prints verbatim), and
 * reading request bodies with the real server's size limit.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { KubeStatus } from '../../kube/errors.js';
import { ApiError } from '../store/errors.js';

/** kube-apiserver's limit for a request body (3 MiB), with room for YAML. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json', headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private', ...headers });
  res.end(text);
}

export function sendBytes(res: ServerResponse, code: number, body: Uint8Array, contentType: string): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': body.length });
  res.end(body);
}

export function statusBody(code: number, reason: string, message: string, details?: KubeStatus['details']): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

export function sendStatus(res: ServerResponse, code: number, reason: string, message: string, headers: OutgoingHttpHeaders = {}, details?: KubeStatus['details']): void {
  sendJson(res, code, statusBody(code, reason, message, details), 'application/json', headers);
}

/** Turns whatever a handler threw into a Status answer; unexpected errors are 500 InternalError. */
export function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof ApiError) {
    sendJson(res, err.httpCode, err.status);
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  sendStatus(res, 500, 'InternalError', `Internal error occurred: ${message}`);
}

export function notFoundPath(res: ServerResponse): void {
  sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {}, {});
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `Warning: 299 - "message"` headers, as the real server sends them (kubectl prints them). */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  return warnings.length > 0 ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
}
