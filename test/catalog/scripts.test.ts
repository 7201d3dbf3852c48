/**
 * The shell scripts the catalog ships in its ConfigMaps, run for real: GIVEN a rendered script with its
 * absolute paths moved into a temporary directory and fake `nc` / `redis-cli` / `pg_dump` / ... first on
 * the PATH, WHEN it runs under dash or bash (the official images' shells), THEN it does what the
 * framework README promises. Catches what snapshots cannot: a script that parses but misbehaves.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Renderer, type Framework } from '../../src/render/index.js';
import { at, catalogVersions, loadCatalogFramework, objectsOf, renderOk } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());
const frameworks = new Map<string, Framework>();
beforeAll(async () => {
  for (const v of catalogVersions()) frameworks.set(v.label, await loadCatalogFramework(v));
});

/** Every `*.sh` entry of the ConfigMaps the plans of a framework render, by name. */
async function scriptsOf(label: string): Promise<Map<string, string>> {
  const framework = frameworks.get(label)!;
  const scripts = new Map<string, string>();
  for (const plan of Object.keys(framework.decl.plans)) {
    for (const cm of objectsOf(await renderOk(renderer, { framework, plan }), 'ConfigMap')) {
      const data = (at(cm, ['data']) ?? {}) as Record<string, string>;
      for (const [k, v] of Object.entries(data)) if (k.endsWith('.sh')) scripts.set(k, v);
    }
  }
  return scripts;
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

interface Sandbox {
  root: string;
  /** Runs `script` (its absolute paths rebased under root) with `env`; fakes in root/bin come first. */
  run(script: string, env?: Record<string, string>): { status: number | null; out: string };
  fake(name: string, body: string): void;
  file(rel: string, content?: string): string;
}

function sandbox(): Sandbox {
  const root = mkdtempSync(path.join(tmpdir(), 'baton-catalog-'));
  dirs.push(root);
  for (const d of ['bin', 'backups', 'data', 'config', 'conf', 'run/redis']) mkdirSync(path.join(root, d), { recursive: true });
  const rebase = (text: string): string => text.replace(/(^|[\s"'=(])\/(backups|data|config|conf|run\/redis)\b/g, `$1${root}/$2`);
  return {
    root,
    fake(name, body) {
      writeFileSync(path.join(root, 'bin', name), `#!/bin/sh\n${body}\n`);
      chmodSync(path.join(root, 'bin', name), 0o755);
    },
    file(rel, content) {
      const p = path.join(root, rel);
      if (content !== undefined) {
        mkdirSync(path.dirname(p), { recursive: true });
        writeFileSync(p, content);
      }
      return p;
    },
    run(script, env = {}) {
      const shell = script.startsWith('#!/usr/bin/env bash') ? 'bash' : 'dash';
      const file = path.join(root, 'script.sh');
      writeFileSync(file, rebase(script));
      const r = spawnSync(shell, [file], { env: { PATH: `${root}/bin:/usr/bin:/bin`, HOME: root, ...env }, encoding: 'utf8', timeout: 10_000 });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    },
  };
}

describe('every shipped script', () => {
  it.each(catalogVersions())('of $label parses under the shell its shebang names', async (v) => {
    const scripts = await scriptsOf(v.label);
    expect(scripts.size).toBeGreaterThan(0);
    for (const [name, text] of scripts) {
      const shell = text.startsWith('#!/usr/bin/env bash') ? 'bash' : text.startsWith('#!/bin/sh') ? 'dash' : undefined;
      expect(shell, `${name} has no known shebang`).toBeDefined();
      const r = spawnSync(shell!, ['-n'], { input: text, encoding: 'utf8' });
      expect(r.stderr, name).toBe('');
      expect(r.status, name).toBe(0);
    }
  });
});

describe('ZooKeeper validate.sh', () => {
  const fakeNc = 'host="$3"; mode=$(cat "$MODES/$host" 2>/dev/null) || exit 1; cat >/dev/null; echo "Zookeeper version: 3.9.3"; echo "Mode: $mode"';
  it.each([
    ['a leader and two followers', ['leader', 'follower', 'follower'], 0, 'ensemble healthy: 3/3 serving, 1 leader'],
    ['one standalone server', ['standalone'], 0, 'ensemble healthy: 1/1 serving, 0 leader'],
    ['a server that does not answer', ['leader', 'follower', ''], 1, 'ensemble unhealthy: 2/3 serving, 1 leaders'],
    ['two leaders', ['leader', 'leader', 'follower'], 1, 'ensemble unhealthy: 3/3 serving, 2 leaders'],
    ['no leader yet', ['follower', 'follower', 'follower'], 1, 'ensemble unhealthy: 3/3 serving, 0 leaders'],
  ] as const)('with %s exits %i', async (_name, modes, status, message) => {
    const box = sandbox();
    box.fake('nc', fakeNc);
    modes.forEach((mode, i) => {
      if (mode !== '') box.file(`modes/zk-${i}.zk-headless.ns.svc.cluster.local`, mode);
    });
    const script = (await scriptsOf('zookeeper 1.0.0')).get('validate.sh')!;
    const r = box.run(script, { REPLICAS: String(modes.length), STATEFULSET: 'zk', HEADLESS: 'zk-headless.ns.svc.cluster.local', VALIDATE_SECONDS: '0', MODES: path.join(box.root, 'modes') });
    expect(r.out).toContain(message);
    expect(r.status).toBe(status);
  });
});

describe('ZooKeeper ready.sh', () => {
  const servers = (n: number): string => Array.from({ length: n }, (_, i) => `server.${i + 1}=zk-${i}.zk-headless.ns.svc.cluster.local:2888:3888;2181`).join('\n');
  // srvr answers from MODES/<host>, conf from CONFS/<host>; no file means the host does not answer.
  const fakeNc = 'host="$3"; read -r cmd; case "$cmd" in srvr) cat "$STATE/srvr-$host" 2>/dev/null || echo "This ZooKeeper instance is not currently serving requests";; conf) cat "$STATE/conf-$host" 2>/dev/null || exit 1;; esac';
  it.each([
    ['serving in a quorum', 'Mode: follower', [3, 3], 0],
    ['not serving while every peer has the same server list', '', [3, 3], 1],
    ['not serving while a peer still runs another server list (REPLICAS changing)', '', [5, 3], 0],
    ['not serving while no peer answers', '', [0, 0], 1],
  ] as const)('%s: exits %i', async (_name, srvr, peerServers, status) => {
    const box = sandbox();
    box.fake('nc', fakeNc);
    box.file('conf/zoo.cfg', `tickTime=2000\n${servers(3)}\n`);
    if (srvr !== '') box.file('state/srvr-127.0.0.1', `${srvr}\n`);
    peerServers.forEach((n, i) => {
      if (n > 0) box.file(`state/conf-zk-${i + 1}.zk-headless.ns.svc.cluster.local`, `clientPort=2181\nmembership: \n${servers(n)}\nversion=0\n`);
    });
    const r = box.run((await scriptsOf('zookeeper 1.0.0')).get('ready.sh')!, { HOSTNAME: 'zk-0', STATE: path.join(box.root, 'state') });
    expect(r.status).toBe(status);
  });
});

/** `date` that returns a later second on every call, so backups get distinct, ordered names. */
const fakeDate = 'n=$(cat "$CLOCK" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$CLOCK"; printf "20260101T0000%02dZ\\n" "$n"';

describe.each([
  ['redis 1.0.0', 'redis-cli', 'while [ "$1" != --rdb ]; do shift; done; echo "rdb of $PRIMARY_HOST" > "$2"', 'rdb', { PRIMARY_HOST: 'c-primary' }],
  ['postgresql 1.0.0', 'pg_dump', 'for a; do case "$a" in --file=*) echo "dump of $PGDATABASE" > "${a#--file=}";; esac; done', 'dump', { PGDATABASE: 'orders', BACKUP_COMPRESSION: '6' }],
] as const)('%s backup.sh', (label, tool, body, ext, env) => {
  it('keeps BACKUP_RETAIN timestamped files, newest first, and latest as a copy of the newest', async () => {
    const box = sandbox();
    box.fake(tool, body);
    box.fake('date', fakeDate);
    const script = (await scriptsOf(label)).get('backup.sh')!;
    for (let i = 0; i < 4; i++) expect(box.run(script, { ...env, INSTANCE: 'c', BACKUP_RETAIN: '2', CLOCK: box.file('clock') }).status).toBe(0);
    const files = readdirSync(path.join(box.root, 'backups')).sort();
    const prefix = ext === 'rdb' ? 'c' : 'c-orders';
    expect(files).toEqual([`${prefix}-20260101T000003Z.${ext}`, `${prefix}-20260101T000004Z.${ext}`, `latest.${ext}`]);
    expect(readFileSync(path.join(box.root, 'backups', `latest.${ext}`), 'utf8')).toBe(readFileSync(path.join(box.root, 'backups', files[1]!), 'utf8'));
  });

  it('fails, leaving no partial file, when the dump fails', async () => {
    const box = sandbox();
    box.fake(tool, 'echo "connection refused" >&2; exit 1');
    box.fake('date', fakeDate);
    const r = box.run((await scriptsOf(label)).get('backup.sh')!, { ...env, INSTANCE: 'c', BACKUP_RETAIN: '2', CLOCK: box.file('clock') });
    expect(r.status).not.toBe(0);
    expect(readdirSync(path.join(box.root, 'backups')).filter((f) => !f.endsWith('.partial'))).toEqual([]);
  });
});

describe('Redis restore.sh', () => {
  it('puts the chosen file in place as dump.rdb and moves the previous data and AOF aside', async () => {
    const box = sandbox();
    box.file('data/dump.rdb', 'old');
    box.file('data/appendonlydir/appendonly.aof.1.base.rdb', 'old aof');
    box.file('backups/c-20260101T000001Z.rdb', 'new');
    const r = box.run((await scriptsOf('redis 1.0.0')).get('restore.sh')!, { BACKUP_NAME: 'c-20260101T000001Z.rdb' });
    expect(r.status).toBe(0);
    expect(readFileSync(box.file('data/dump.rdb'), 'utf8')).toBe('new');
    expect(readFileSync(box.file('data/before-restore/dump.rdb'), 'utf8')).toBe('old');
    expect(existsSync(box.file('data/before-restore/appendonlydir/appendonly.aof.1.base.rdb'))).toBe(true);
    expect(existsSync(box.file('data/appendonlydir'))).toBe(false);
  });

  it('with CHECK_ONLY only confirms the file exists, touching nothing', async () => {
    const box = sandbox();
    box.file('data/dump.rdb', 'old');
    box.file('backups/latest.rdb', 'new');
    const r = box.run((await scriptsOf('redis 1.0.0')).get('restore.sh')!, { BACKUP_NAME: 'latest.rdb', CHECK_ONLY: '1' });
    expect(r).toEqual({ status: 0, out: 'found latest.rdb\n' });
    expect(readFileSync(box.file('data/dump.rdb'), 'utf8')).toBe('old');
    expect(existsSync(box.file('data/before-restore'))).toBe(false);
  });

  it.each([
    ['a file that does not exist', 'nope.rdb', 'backup nope.rdb not found; available:'],
    ['a path outside the backup volume', '../data/dump.rdb', 'invalid BACKUP_NAME'],
  ])('refuses %s and changes nothing', async (_name, backupName, message) => {
    const box = sandbox();
    box.file('data/dump.rdb', 'old');
    box.file('backups/latest.rdb', 'new');
    const r = box.run((await scriptsOf('redis 1.0.0')).get('restore.sh')!, { BACKUP_NAME: backupName });
    expect(r.status).toBe(1);
    expect(r.out).toContain(message);
    expect(readFileSync(box.file('data/dump.rdb'), 'utf8')).toBe('old');
  });
});

describe('Redis start.sh', () => {
  const fakeServer = 'cp "$1" "$CONF_SEEN"; exit 0';
  it.each([
    ['a replica follows the primary', 'replica', false, ['requirepass "pw"', 'masterauth "pw"', 'replicaof c-primary 6379']],
    ['a primary has no replicaof', 'primary', false, ['requirepass "pw"', 'masterauth "pw"']],
  ] as const)('%s, with the password only in the runtime config', async (_name, role, _aof, lines) => {
    const box = sandbox();
    box.fake('redis-server', fakeServer);
    box.file('config/redis.conf', 'port 6379\nappendonly no\n');
    const r = box.run((await scriptsOf('redis 1.0.0')).get('start.sh')!, { REDIS_ROLE: role, REDIS_PASSWORD: 'pw', PRIMARY_HOST: 'c-primary', CONF_SEEN: box.file('seen.conf') });
    expect(r.status).toBe(0);
    expect(readFileSync(box.file('seen.conf'), 'utf8').trim().split('\n').slice(2)).toEqual(lines);
  });

  it('with AOF on and only an RDB file, loads the RDB with AOF off and then enables AOF live', async () => {
    const box = sandbox();
    box.fake('redis-server', 'cp "$1" "$CONF_SEEN"; sleep 0.2');
    box.fake('redis-cli', 'echo "$*" >> "$CALLS"; case "$*" in *ping*) echo PONG;; *persistence*) echo aof_rewrite_in_progress:0;; *) echo OK;; esac');
    box.file('config/redis.conf', 'port 6379\nappendonly yes\n');
    box.file('data/dump.rdb', 'restored');
    const r = box.run((await scriptsOf('redis 1.0.0')).get('start.sh')!, { REDIS_ROLE: 'primary', REDIS_PASSWORD: 'pw', PRIMARY_HOST: 'c-primary', CONF_SEEN: box.file('seen.conf'), CALLS: box.file('calls') });
    expect(r.status).toBe(0);
    expect(readFileSync(box.file('seen.conf'), 'utf8').trim().split('\n').at(-1)).toBe('appendonly no');
    expect(readFileSync(box.file('calls'), 'utf8')).toContain('config set appendonly yes');
  });
});

describe('PostgreSQL restore.sh', () => {
  it('restores the chosen dump into the database in one transaction, replacing its objects', async () => {
    const box = sandbox();
    box.fake('pg_restore', 'echo "$*" > "$CALLS"');
    box.file('backups/latest.dump', 'dump');
    const r = box.run((await scriptsOf('postgresql 1.0.0')).get('restore.sh')!, { BACKUP_NAME: 'latest.dump', PGDATABASE: 'orders', CALLS: box.file('calls') });
    expect(r.status).toBe(0);
    expect(readFileSync(box.file('calls'), 'utf8').trim()).toBe(
      `--clean --if-exists --no-owner --single-transaction --exit-on-error --no-password --dbname=orders ${box.root}/backups/latest.dump`,
    );
  });
});

describe('Kafka topics.sh and reassign.sh', () => {
  /** The script with Kafka's tools found on the PATH (fakes) and the credentials under the sandbox. */
  const kafkaScript = async (name: string, root: string): Promise<string> =>
    (await scriptsOf('kafka 1.1.0')).get(name)!.replace(/\/opt\/kafka\/bin\//g, '').replace(/\/etc\/kafka\/auth\//g, `${root}/auth/`);
  // kafka-topics.sh: --list prints $STATE/topics; --describe --topic T prints its PartitionCount; --describe
  // alone prints $STATE/describe; every call is logged to $STATE/calls.
  const fakeTopics = [
    'echo "kafka-topics $*" >> "$STATE/calls"',
    'case " $* " in',
    '  *" --list "*) cat "$STATE/topics" ;;',
    '  *" --describe --topic "*) t=$(echo "$*" | sed -n "s/.*--topic \\([^ ]*\\).*/\\1/p"); echo "Topic: $t TopicId: x PartitionCount: $(cat "$STATE/partitions-$t") ReplicationFactor: 3" ;;',
    '  *" --describe "*) cat "$STATE/describe" ;;',
    'esac',
  ].join('\n');

  it('creates missing topics with their settings, grows partitions of existing ones and keeps the others', async () => {
    const box = sandbox();
    box.fake('kafka-topics.sh', fakeTopics);
    box.fake('kafka-configs.sh', 'echo "kafka-configs $*" >> "$STATE/calls"');
    box.file('state/topics', 'orders\nlegacy\n');
    box.file('state/partitions-orders', '3');
    box.file('auth/client.properties', 'security.protocol=SASL_PLAINTEXT\n');
    const r = box.run(await kafkaScript('topics.sh', box.root), { STATE: path.join(box.root, 'state'), BOOTSTRAP: 'k:9092', TOPICS: 'orders 6 3 -\naudit 3 2 cleanup.policy=compact,retention.ms=1000' });
    expect(r.out).toContain('topics: 1 created, 1 already there');
    expect(r.status).toBe(0);
    const calls = readFileSync(path.join(box.root, 'state/calls'), 'utf8');
    expect(calls).toContain('--alter --topic orders --partitions 6');
    expect(calls).toContain('--create --topic audit --partitions 3 --replication-factor 2 --config cleanup.policy=compact --config retention.ms=1000');
    expect(calls).not.toContain('legacy');
    expect(calls).not.toContain('kafka-configs');
  });

  it('does not lower partitions, and fails when the cluster never answers', async () => {
    const box = sandbox();
    box.fake('kafka-topics.sh', fakeTopics);
    box.file('state/topics', 'orders\n');
    box.file('state/partitions-orders', '12');
    box.file('auth/client.properties', '');
    const ok = box.run(await kafkaScript('topics.sh', box.root), { STATE: path.join(box.root, 'state'), BOOTSTRAP: 'k:9092', TOPICS: 'orders 6 3 -' });
    expect(ok.status).toBe(0);
    expect(readFileSync(path.join(box.root, 'state/calls'), 'utf8')).not.toContain('--alter');
    box.fake('kafka-topics.sh', 'exit 1');
    const down = box.run(await kafkaScript('topics.sh', box.root), { STATE: path.join(box.root, 'state'), BOOTSTRAP: 'k:9092', TOPICS: 'orders 6 3 -', WAIT_SECONDS: '0' });
    expect([down.status, down.out]).toEqual([1, expect.stringContaining('kafka at k:9092 does not answer') as unknown]);
  });

  it('drain moves nothing when no replica is on a broker that goes, and plans a move when one is', async () => {
    const box = sandbox();
    box.fake('kafka-topics.sh', fakeTopics);
    box.fake('kafka-reassign-partitions.sh', [
      'echo "kafka-reassign $*" >> "$STATE/calls"',
      'case " $* " in *" --generate "*) echo "Current partition replica assignment"; echo "{}"; echo; echo "Proposed partition reassignment configuration"; echo "{\\"version\\":1}";; esac',
    ].join('\n'));
    box.file('state/topics', 'orders\n');
    box.file('state/describe', 'Topic: orders Partition: 0 Leader: 0 Replicas: 0,1,2 Isr: 0,1,2\n');
    box.file('auth/client.properties', '');
    const env = { STATE: path.join(box.root, 'state'), BOOTSTRAP: 'k:9092', BROKERS: '3', REASSIGN: 'drain' };
    const nothing = box.run(await kafkaScript('reassign.sh', box.root), env);
    expect([nothing.status, nothing.out]).toEqual([0, expect.stringContaining('nothing to move') as unknown]);
    box.file('state/describe', 'Topic: orders Partition: 0 Leader: 3 Replicas: 3,1,2 Isr: 3,1,2\n');
    const moved = box.run(await kafkaScript('reassign.sh', box.root), env);
    expect(moved.out).toContain('moving replicas off brokers 3');
    expect(moved.status).toBe(0);
    const calls = readFileSync(path.join(box.root, 'state/calls'), 'utf8');
    expect(calls).toContain('--broker-list 0,1,2 --generate');
    expect(calls).toMatch(/--reassignment-json-file \S+plan\.json --execute/);
  });
});
