/**
 * KUDO's Pipe task (KEP-17) -> Baton's Pipe task (docs/composition.md).
 *
 * KUDO ran the pipe pod's init containers, which write files into an emptyDir volume, then copied the files
 * out of a `sleep` container it added and stored each in a ConfigMap or Secret whose *name* templates read as
 * `.Pipes.<key>`. Baton's Pipe task runs a Job and keeps the JSON object its container writes to the
 * termination log. So the pod becomes a Job: the init containers stay, and the added container prints the
 * files as JSON (file name -> text) instead of sleeping. The output object is `<instance>-pipe-<task>`, with
 * each file under its base name (as KUDO stored it); `.Pipes.<key>` becomes that object's name.
 *
 * The pod template is restructured as YAML with its Go actions masked; a pod whose template actions shape
 * the YAML (if/range/with around keys) cannot be restructured and is reported, never guessed.
 */
import { parseDocument, stringify, type Document } from 'yaml';
import type { TaskDecl } from '../../render/schemas.js';
import type { FindingLog, SourceLocation } from '../report.js';
import { isRecord, toDnsLabel } from '../util.js';

/** The image of the container that prints the files: any image with a POSIX `sh` and `awk` works. */
export const PIPE_OUTPUT_IMAGE = 'busybox:1.36';
export const PIPE_OUTPUT_CONTAINER = 'baton-pipe-output';

export interface KudoPipe {
  /** The KUDO key: `.Pipes.<key>` in templates. */
  key: string;
  /** The file's path in the pod. */
  file: string;
  /** The data key in the output object (the file's base name, as KUDO stored it). */
  name: string;
  kind: 'ConfigMap' | 'Secret';
}

export interface PipeConversion {
  decl: TaskDecl;
  /** The Job as a Go template, to translate like the package's templates. */
  jobSource: string;
  pipes: KudoPipe[];
}

const CONTROL = /^\{\{-?\s*(if|else|end|range|with|define|template|block)\b/;

/**
 * Prints the files as one JSON object of base name to text on the termination log. awk escapes byte by
 * byte (backslash, quote, tab, carriage return; lines joined with \n and a final \n), so the output is JSON
 * whatever the files hold, as long as they are text.
 */
export function outputScript(pipes: readonly KudoPipe[], log = '/dev/termination-log'): string {
  const esc = `awk '{ o = ""; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c == "\\\\") o = o "\\\\\\\\"; else if (c == "\\"") o = o "\\\\\\""; else if (c == "\\t") o = o "\\\\t"; else if (c == "\\r") o = o "\\\\r"; else o = o c } printf "%s\\\\n", o }'`;
  const parts = pipes.map((p, i) => `printf '%s' '${i === 0 ? '' : ','}"${p.name}":"'; ${esc} '${p.file.replace(/'/g, `'\\''`)}'; printf '"'`);
  return `set -e; { printf '{'; ${parts.join('; ')}; printf '}'; } > ${log}`;
}

function readPipes(task: { name: string; spec: Record<string, unknown>; at: SourceLocation }, log: FindingLog): KudoPipe[] | undefined {
  const list = task.spec.pipe;
  if (!Array.isArray(list) || list.length === 0) {
    log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: a Pipe task needs spec.pipe, a list of {file, kind, key}`);
    return undefined;
  }
  const out: KudoPipe[] = [];
  for (const [i, raw] of list.entries()) {
    const file = isRecord(raw) && typeof raw.file === 'string' ? raw.file : '';
    const key = isRecord(raw) && typeof raw.key === 'string' ? raw.key : '';
    const kind = isRecord(raw) ? raw.kind : undefined;
    if (!file.startsWith('/') || key === '' || (kind !== 'ConfigMap' && kind !== 'Secret')) {
      log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: pipe[${i}] needs file (an absolute path), kind (ConfigMap or Secret) and key`);
      return undefined;
    }
    const name = file.split('/').pop() ?? '';
    if (!/^[-._a-zA-Z0-9]+$/.test(name)) {
      log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: pipe[${i}] file ${file}: its base name must be a valid ConfigMap key (letters, digits, "-", "_", ".")`);
      return undefined;
    }
    if (out.some((p) => p.name === name)) {
      log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: two pipe files have the base name ${name}; Baton keeps a task's files in one object, by base name`);
      return undefined;
    }
    out.push({ key, file, name, kind });
  }
  if (new Set(out.map((p) => p.kind)).size > 1) {
    log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: its files go to both a ConfigMap and a Secret; a Baton Pipe task keeps its files in one object: split the task in two`);
    return undefined;
  }
  return out;
}

/** The pod template as a Job template (Go template text), or undefined with the reason logged. */
function podToJob(source: string, file: string, taskName: string, pipes: readonly KudoPipe[], at: SourceLocation, log: FindingLog): string | undefined {
  const actions: string[] = [];
  let control = false;
  const masked = source.replace(/\{\{[\s\S]*?\}\}/g, (m) => {
    if (CONTROL.test(m)) control = true;
    actions.push(m);
    return `GOTPL${actions.length - 1}X`;
  });
  const refuse = (why: string): undefined => void log.error('IMPORT_TASK_PIPE', at, `task ${taskName}: pipe pod ${file} cannot become a Job: ${why}; write the Job and a Baton Pipe task by hand (docs/composition.md)`);
  if (control) return refuse('its template actions (if/range/with/template) shape the YAML');
  let doc: Document;
  try {
    doc = parseDocument(masked, { uniqueKeys: true });
  } catch (err) {
    return refuse(`it is not YAML once its template actions are set aside (${(err as Error).message})`);
  }
  if (doc.errors.length > 0) return refuse(`it is not YAML once its template actions are set aside (${doc.errors[0]!.message})`);
  const pod: unknown = doc.toJS();
  if (!isRecord(pod) || pod.kind !== 'Pod' || !isRecord(pod.spec)) return refuse('it does not render one Pod with a spec');
  const spec = { ...pod.spec };
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const init = [...list(spec.initContainers), ...list(spec.containers)];
  if (init.length === 0) return refuse('it has no container that writes the files');
  const mounts = new Map<string, unknown>();
  for (const c of init) if (isRecord(c) && Array.isArray(c.volumeMounts)) for (const m of c.volumeMounts) if (isRecord(m)) mounts.set(`${String(m.name)}:${String(m.mountPath)}`, { name: m.name, mountPath: m.mountPath });
  spec.initContainers = init;
  spec.containers = [{ name: PIPE_OUTPUT_CONTAINER, image: PIPE_OUTPUT_IMAGE, command: ['sh', '-c', outputScript(pipes)], volumeMounts: [...mounts.values()] }];
  spec.restartPolicy = 'OnFailure';
  const meta = isRecord(pod.metadata) ? pod.metadata : {};
  const podMeta: Record<string, unknown> = {};
  if (meta.labels !== undefined) podMeta.labels = meta.labels;
  if (meta.annotations !== undefined) podMeta.annotations = meta.annotations;
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: typeof meta.name === 'string' ? meta.name : `GOTPL${actions.push('{{ .Name }}') - 1}X-${toDnsLabel(taskName)}`, ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}) },
    spec: { backoffLimit: 3, template: { ...(Object.keys(podMeta).length > 0 ? { metadata: podMeta } : {}), spec } },
  };
  const text = stringify(job, { lineWidth: 0, aliasDuplicateObjects: false });
  return text.replace(/GOTPL(\d+)X/g, (_m, i: string) => actions[Number(i)]!);
}

/** Converts one KUDO Pipe task; the caller translates `jobSource` and registers `.Pipes.<key>`. */
export function convertPipeTask(task: { name: string; spec: Record<string, unknown>; at: SourceLocation }, podSource: string | undefined, log: FindingLog, jobTemplate: string): PipeConversion | undefined {
  const pod = task.spec.pod;
  if (typeof pod !== 'string' || podSource === undefined) {
    log.error('IMPORT_TASK_PIPE', task.at, `task ${task.name}: spec.pod must name a Pod template in templates/, got ${JSON.stringify(pod)}`);
    return undefined;
  }
  const pipes = readPipes(task, log);
  if (!pipes) return undefined;
  const jobSource = podToJob(podSource, `templates/${pod}`, task.name, pipes, task.at, log);
  if (jobSource === undefined) return undefined;
  const kind = pipes[0]!.kind;
  log.mapped(
    'IMPORT_TASK_PIPE',
    task.at,
    `task ${task.name} -> Pipe task: pod ${pod} becomes the Job in templates/${jobTemplate} (its containers run as init containers, then a ${PIPE_OUTPUT_IMAGE} container prints ${pipes.map((p) => p.file).join(', ')} as JSON to the termination log); the files are kept in ${kind} <instance>-pipe-${task.name} by base name, and ${pipes.map((p) => `.Pipes.${p.key}`).join(', ')} name${pipes.length === 1 ? 's' : ''} it. Baton reads at most 4096 bytes of output in all (KUDO copied up to 1 MB per file): more fails the step with PIPE_OUTPUT_TOO_LARGE`,
  );
  return { decl: { name: task.name, kind: 'Pipe', resources: [jobTemplate], pipe: { kind, files: pipes.map((p) => p.name) } }, jobSource, pipes };
}
