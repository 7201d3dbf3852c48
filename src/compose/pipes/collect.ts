/**
 * Pipe tasks in the engine: after a Pipe step's Job completed (its readiness gate passed), the output of
 * its succeeded pod becomes the pipe object (`<instance>-pipe-<task>`, a ConfigMap or Secret the
 * instance owns). The output is the container's termination message (what it writes to
 * /dev/termination-log, `state.terminated.message`), a JSON object of file name -> text. That works the
 * same on a real cluster and on the simulated one (`sim.baton.dev/termination-message`), needs no logs
 * API, and is bounded by Kubernetes (4096 bytes per container); `maxBytes` can lower the cap.
 * No output, output that is not such a JSON object, a declared file missing or too much output are
 * PIPE_* failures of the step naming the task and the Job.
 */
import type { KubeClient } from '../../kube/client.js';
import { isRecord, type KubeObject, type ObjectRef } from '../../kube/object.js';
import { BatonError } from '../../errors.js';
import { ANNOTATION_OWNER, LABEL_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_VALUE, labelValue, ownerValue } from '../../render/labels.js';
import type { RenderedPipe } from '../../render/types.js';

export type PipeErrorCode = 'PIPE_NO_OUTPUT' | 'PIPE_OUTPUT_TOO_LARGE' | 'PIPE_OUTPUT_INVALID' | 'PIPE_OUTPUT_MISSING';

/** A pipe's Job did not produce usable output: the step fails (permanent: running the Job again gives the same output). */
export class PipeError extends BatonError {
  declare readonly code: PipeErrorCode;
  constructor(code: PipeErrorCode, message: string, object: string) {
    super(code, message, { object });
  }
}

export interface InstanceRef {
  namespace: string;
  name: string;
}

export function pipeObjectRef(instance: InstanceRef, pipe: Pick<RenderedPipe, 'target'>): ObjectRef {
  return { apiVersion: 'v1', kind: pipe.target.kind, namespace: instance.namespace, name: pipe.target.name };
}

/** The termination messages of the Job's succeeded pod(s), newest pod first. */
async function jobOutput(client: KubeClient, namespace: string, job: string): Promise<string | undefined> {
  const pods = await client.list('v1', 'Pod', namespace, { labelSelector: `job-name=${job}` });
  const succeeded = pods.items
    .filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Succeeded')
    .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''));
  const pod = succeeded[0];
  if (pod === undefined) return undefined;
  const statuses = ((pod.status as { containerStatuses?: { state?: { terminated?: { message?: string } } }[] } | undefined)?.containerStatuses ?? []);
  const messages = statuses.map((s) => s.state?.terminated?.message ?? '').filter((m) => m.trim() !== '');
  return messages.length === 0 ? undefined : messages.join('\n');
}

/** Reads the Job's output, checks it against the pipe, and writes the pipe object. Returns the files. */
export async function collectPipe(client: KubeClient, instance: InstanceRef, pipe: RenderedPipe): Promise<Record<string, string>> {
  const where = `Pipe task ${pipe.task} (Job ${instance.namespace}/${pipe.job})`;
  const object = `Job ${instance.namespace}/${pipe.job}`;
  const text = await jobOutput(client, instance.namespace, pipe.job);
  if (text === undefined) throw new PipeError('PIPE_NO_OUTPUT', `${where} produced no output: its container must write a JSON object of ${pipe.files.join(', ')} to its termination message (/dev/termination-log)`, object);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > pipe.maxBytes) throw new PipeError('PIPE_OUTPUT_TOO_LARGE', `${where} produced ${bytes} bytes of output; at most ${pipe.maxBytes} are accepted`, object);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PipeError('PIPE_OUTPUT_INVALID', `${where}: its output is not JSON (expected an object of ${pipe.files.join(', ')} to text)`, object);
  }
  if (!isRecord(parsed)) throw new PipeError('PIPE_OUTPUT_INVALID', `${where}: its output must be a JSON object of file name to text`, object);
  const files: Record<string, string> = {};
  const missing: string[] = [];
  for (const f of pipe.files) {
    const v = parsed[f];
    if (typeof v === 'string') files[f] = v;
    else missing.push(f);
  }
  if (missing.length > 0) throw new PipeError('PIPE_OUTPUT_MISSING', `${where}: its output has no text for ${missing.join(', ')} (declared files: ${pipe.files.join(', ')})`, object);
  await client.apply(pipeObject(instance, pipe, files), { fieldManager: 'baton', force: true });
  return files;
}

function pipeObject(instance: InstanceRef, pipe: RenderedPipe, files: Record<string, string>): KubeObject {
  const metadata = {
    name: pipe.target.name,
    namespace: instance.namespace,
    labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE, [LABEL_INSTANCE]: labelValue(instance.name), 'baton.dev/pipe': labelValue(pipe.task) },
    annotations: { [ANNOTATION_OWNER]: ownerValue(instance) },
  };
  return pipe.target.kind === 'Secret'
    ? { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])) }
    : { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: files };
}

/** The pipes' current contents, for templates (`pipes.<task>.<file>`), and the text of Secret pipes, for masking. */
export async function readPipes(client: KubeClient, instance: InstanceRef, pipes: readonly { task: string; kind: 'ConfigMap' | 'Secret'; name: string }[]): Promise<{ values: Record<string, Record<string, string>>; secrets: string[] }> {
  const values: Record<string, Record<string, string>> = {};
  const secrets: string[] = [];
  for (const p of pipes) {
    const obj = await client.get({ apiVersion: 'v1', kind: p.kind, namespace: instance.namespace, name: p.name });
    if (obj === undefined) continue;
    const data = isRecord(obj['data']) ? obj['data'] : {};
    const files: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string') continue;
      files[k] = p.kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
      if (p.kind === 'Secret' && files[k] !== '') secrets.push(files[k]);
    }
    values[p.task] = files;
  }
  return { values, secrets };
}
