/**
 * Pipe tasks at render time: the `pipes` template local (each Pipe task's files, as its output object
 * holds them now, or empty strings before the pipe has run) and the rendered pipe of a step (the one
 * Job its template must render, and where the output goes). Pure.
 */
import type { Framework } from './model.js';
import { problem, type Problem } from './problems.js';
import type { TaskDecl } from './schemas.js';
import type { RenderedPipe } from './types.js';
import { isRecord } from '../kube/object.js';

export const PIPE_MAX_BYTES = 4096;
type PipeTask = Extract<TaskDecl, { kind: 'Pipe' }>;

/** The object a Pipe task's output is kept in. */
export function pipeObjectName(instance: string, task: string): string {
  return `${instance}-pipe-${task}`;
}

export function pipeTasks(fw: Framework): PipeTask[] {
  return fw.decl.tasks.filter((t): t is PipeTask => t.kind === 'Pipe');
}

/** `pipes.<task>.<file>`: the read output, declared files only; missing ones are empty strings. */
export function pipeLocals(fw: Framework, read: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const t of pipeTasks(fw)) out[t.name] = Object.fromEntries(t.pipe.files.map((f) => [f, read?.[t.name]?.[f] ?? '']));
  return out;
}

export function pipeOf(task: PipeTask, docs: readonly unknown[], file: string, instance: string, problems: Problem[]): RenderedPipe | undefined {
  const jobs = docs.filter((d) => isRecord(d) && d['kind'] === 'Job' && d['apiVersion'] === 'batch/v1');
  if (jobs.length !== 1 || docs.length !== 1) {
    problems.push(problem({ code: 'PIPE_JOB_INVALID', file, message: `Pipe task ${task.name}: its template must render exactly one batch/v1 Job (got ${docs.length} object(s), ${jobs.length} Job(s))` }));
    return undefined;
  }
  const job = jobs[0] as { metadata: { name: string } };
  return {
    task: task.name,
    job: job.metadata.name,
    target: { kind: task.pipe.kind, name: pipeObjectName(instance, task.name) },
    files: [...task.pipe.files],
    maxBytes: task.pipe.maxBytes ?? PIPE_MAX_BYTES,
  };
}
