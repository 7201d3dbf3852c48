/**
 * A real Git smart-HTTP server for tests: a small node http server on 127.0.0.1 that runs the git
 * binary's `git http-backend` as CGI behind basic authentication, serving bare repositories from a
 * temp directory. Also helpers for a sandboxed git environment (no system config, temp HOME) and
 * for "someone else" working in a clone of a served repository.
 */
import { spawn, execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface GitSandbox {
  /** Environment for git child processes: no system config, temp HOME, fixed identity, main branch. */
  env: NodeJS.ProcessEnv;
  dir: string;
  cleanup(): void;
}

/** A temp HOME with a global gitconfig so every git the test runs behaves the same. */
export function gitSandbox(): GitSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'baton-git-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  // Tests must control every git setting; drop anything ambient except the CA bundle.
  for (const key of Object.keys(env)) if (key.startsWith('GIT_') && !['GIT_CONFIG_NOSYSTEM', 'GIT_TERMINAL_PROMPT', 'GIT_SSL_CAINFO'].includes(key)) delete env[key];
  return { env, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface GitServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** URL of a repository with the credentials embedded (what a user would configure). */
  url(repo: string, auth?: { user: string; password: string }): string;
  /** URL without credentials. */
  plainUrl(repo: string): string;
  root: string;
  /** Creates an empty bare repository `name.git` and returns its path. */
  createBare(name: string): string;
  requests: number;
  close(): Promise<void>;
}

export interface GitServerOptions {
  user?: string;
  password?: string;
  env: NodeJS.ProcessEnv;
}

/** Starts the server; every request must carry basic auth `user:password` (default `baton:secret`). */
export async function startGitServer(options: GitServerOptions): Promise<GitServer> {
  const user = options.user ?? 'baton';
  const password = options.password ?? 'secret';
  const root = mkdtempSync(join(tmpdir(), 'baton-gitsrv-'));
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('authentication required\n');
      req.resume();
      return;
    }
    serveCgi(req, res, root, user, options.env);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    root,
    get requests() { return state.requests; },
    url: (repo, auth = { user, password }) => `http://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@127.0.0.1:${port}/${repo}`,
    plainUrl: (repo) => `${base}/${repo}`,
    createBare(name) {
      const path = join(root, name);
      execFileSync('git', ['init', '--bare', '--quiet', path], { env: options.env });
      return path;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { rmSync(root, { recursive: true, force: true }); resolve(); });
    }),
  };
}

function serveCgi(req: IncomingMessage, res: ServerResponse, root: string, user: string, env: NodeJS.ProcessEnv): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const cgiEnv: NodeJS.ProcessEnv = {
    ...env,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_USER: user,
    REMOTE_ADDR: '127.0.0.1',
    GIT_HTTP_MAX_REQUEST_BUFFER: '100M',
  };
  if (req.headers['content-encoding']) cgiEnv.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') cgiEnv.GIT_PROTOCOL = protocol;
  const child = spawn('git', ['http-backend'], { env: cgiEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) { res.write(chunk); return; }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    const endLf = head.indexOf('\n\n');
    const cut = end >= 0 ? { at: end, len: 4 } : endLf >= 0 ? { at: endLf, len: 2 } : undefined;
    if (!cut) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, cut.at).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(cut.at + cut.len));
  });
  child.stdout.on('end', () => res.end());
  child.stderr.resume();
  child.on('error', () => { if (!res.headersSent) res.writeHead(500); res.end(); });
}

/** Runs git synchronously in `cwd` with the sandbox environment; returns trimmed stdout. */
export function git(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const execFileAsync = promisify(execFile);

/** Runs git without blocking the event loop (needed whenever it talks to the in-process server). */
export async function gitAsync(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env, encoding: 'utf8' });
  return stdout.trim();
}

/** A working clone "another person" uses to push to a served repository. */
export interface WorkClone {
  dir: string;
  write(path: string, content: string): void;
  remove(path: string): void;
  commit(message: string): string;
  push(): Promise<void>;
  pull(): Promise<void>;
  git(...args: string[]): string;
}

export async function workClone(env: NodeJS.ProcessEnv, url: string, dir: string): Promise<WorkClone> {
  await execFileAsync('git', ['clone', '--quiet', url, dir], { env });
  const run = (...args: string[]): string => git(env, dir, ...args);
  return {
    dir,
    git: run,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    remove(path) { run('rm', '--quiet', path); },
    commit(message) {
      run('add', '--all');
      run('commit', '--quiet', '--allow-empty', '-m', message);
      return run('rev-parse', 'HEAD');
    },
    push: async () => { await gitAsync(env, dir, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main'); },
    pull: async () => { await gitAsync(env, dir, 'pull', '--quiet', '--rebase', 'origin', 'main'); },
  };
}
