/**
 * Regenerates src/cluster/server/proto/kube-proto.json, the protobuf schema the simulated API server
 * decodes request bodies with: `npx tsx scripts/cluster-proto.ts [path/to/kubectl]`.
 *
 * Source: the published Kubernetes schemas (k8s.io/api and k8s.io/apimachinery `generated.proto`) as
 * compiled into an official kubectl: every Go package of k8s.io/api registers its gzipped
 * FileDescriptorProto, and those descriptors keep the gogoproto options (`nullable=false` marks the
 * Go fields that are not pointers: the one fact that decides whether a zero value on the wire means
 * "set to zero" or "not set"). No npm package carries the Kubernetes .proto files, and every machine
 * of this project has kubectl (default: the newest versioned binary beside the one on the PATH).
 * The descriptors are parsed with protobufjs's descriptor extension and written as a protobufjs JSON
 * root, keeping only the gogoproto nullable option.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import protobuf from 'protobufjs';
import descriptorModule from 'protobufjs/ext/descriptor/index.js';

/** The parts of protobufjs's descriptor extension used here (its typings do not declare them). */
interface FileDescriptor {
  package?: string;
  dependency?: string[];
}
const descriptor = descriptorModule as unknown as {
  FileDescriptorProto: { decode(raw: Uint8Array): FileDescriptor };
  FileDescriptorSet: { create(value: { file: FileDescriptor[] }): unknown };
};

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(root, 'src/cluster/server/proto/kube-proto.json');

/** The group versions the simulated server serves (their dependencies come along). */
const WANTED = [
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/batch/v1/generated.proto',
  'k8s.io/api/policy/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/networking/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/storage/v1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
  'k8s.io/api/autoscaling/v2/generated.proto',
  'k8s.io/api/discovery/v1/generated.proto',
  'k8s.io/api/scheduling/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
];

function defaultKubectl(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'kubectl');
    if (dir !== '' && existsSync(candidate)) return join(dirname(realpathSync(candidate)), 'kubectl.1.33');
  }
  throw new Error('no kubectl on the PATH: pass the path of a kubectl binary');
}

/** Every gzipped FileDescriptorProto of a k8s.io package in the binary, by file name. */
function descriptorsIn(binary: Buffer): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const magic = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
  for (let at = binary.indexOf(magic); at >= 0; at = binary.indexOf(magic, at + 1)) {
    let raw: Buffer;
    try {
      // The 10-byte gzip header (no flags) then raw deflate; whatever follows in the binary is ignored.
      raw = inflateRawSync(binary.subarray(at + 10, at + 4_000_000));
    } catch {
      continue;
    }
    if (raw[0] !== 0x0a) continue;
    const reader = new protobuf.Reader(raw);
    reader.uint32(); // field 1 (name), length-delimited
    const name = reader.string();
    if (name.startsWith('k8s.io/') && name.endsWith('.proto') && !found.has(name)) found.set(name, raw);
  }
  return found;
}

/** gogoproto.nullable (65001) of one FieldDescriptorProto, read from its raw options bytes. */
function nullableFalse(rawField: Uint8Array): boolean {
  const r = new protobuf.Reader(rawField);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 !== 8 || (tag & 7) !== 2) {
      r.skipType(tag & 7);
      continue;
    }
    const opts = new protobuf.Reader(r.bytes());
    while (opts.pos < opts.len) {
      const t = opts.uint32();
      if (t >>> 3 === 65001 && (t & 7) === 0) return opts.uint32() === 0;
      opts.skipType(t & 7);
    }
  }
  return false;
}

/** Raw FieldDescriptorProto bytes of each field of each message, by `.package.Message.field`. */
function rawFields(file: Buffer, pkg: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walkMessage = (buf: Uint8Array, prefix: string): void => {
    const r = new protobuf.Reader(buf);
    let name = '';
    const fields: Uint8Array[] = [];
    const nested: Uint8Array[] = [];
    while (r.pos < r.len) {
      const tag = r.uint32();
      const field = tag >>> 3;
      if (field === 1 && (tag & 7) === 2) name = r.string();
      else if (field === 2 && (tag & 7) === 2) fields.push(r.bytes());
      else if (field === 3 && (tag & 7) === 2) nested.push(r.bytes());
      else r.skipType(tag & 7);
    }
    const full = `${prefix}.${name}`;
    for (const f of fields) {
      const fr = new protobuf.Reader(f);
      let fname = '';
      while (fr.pos < fr.len) {
        const tag = fr.uint32();
        if (tag >>> 3 === 1 && (tag & 7) === 2) fname = fr.string();
        else fr.skipType(tag & 7);
      }
      out.set(`${full}.${fname}`, f);
    }
    for (const n of nested) walkMessage(n, full);
  };
  const r = new protobuf.Reader(file);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 4 && (tag & 7) === 2) walkMessage(r.bytes(), `.${pkg}`);
    else r.skipType(tag & 7);
  }
  return out;
}

function main(): void {
  const kubectl = process.argv[2] ?? defaultKubectl();
  const all = descriptorsIn(readFileSync(kubectl));
  const needed = new Set<string>();
  const visit = (name: string): void => {
    if (needed.has(name)) return;
    const raw = all.get(name);
    if (!raw) throw new Error(`${kubectl} carries no descriptor for ${name}`);
    needed.add(name);
    for (const dep of descriptor.FileDescriptorProto.decode(raw).dependency ?? []) if (dep.startsWith('k8s.io/')) visit(dep);
  };
  for (const name of WANTED) visit(name);

  const set = descriptor.FileDescriptorSet.create({ file: [...needed].sort().map((n) => descriptor.FileDescriptorProto.decode(all.get(n) as Buffer)) });
  const pbRoot = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set);
  pbRoot.resolveAll();
  // Keep one option per field: gogoproto.nullable=false (a Go value, not a pointer).
  for (const name of needed) {
    const file = descriptor.FileDescriptorProto.decode(all.get(name) as Buffer);
    for (const [path, raw] of rawFields(all.get(name) as Buffer, file.package ?? '')) {
      const field = pbRoot.lookup(path);
      if (!(field instanceof protobuf.Field)) continue;
      if (nullableFalse(raw)) field.options = { '(gogoproto.nullable)': false };
      else delete field.options;
    }
  }
  const json = pbRoot.toJSON({ keepComments: false });
  writeFileSync(OUT, `${JSON.stringify(json)}\n`);
  console.log(`wrote ${OUT}: ${needed.size} files from ${kubectl}`);
}

main();
