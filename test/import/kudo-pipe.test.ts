/**
 * KUDO Pipe tasks: the pipe pod becomes a Job whose added container prints the files as JSON to the
 * termination log. The script runs here with the machine's sh and awk on files a certificate generator or a
 * config generator could write (quotes, backslashes, tabs, carriage returns, no final newline, empty).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { importKudo, readPackageDir } from '../../src/import/index.js';
import { outputScript, type KudoPipe } from '../../src/import/kudo/pipe.js';
import { errorsOf, KUDO_QUORUM } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-kudo-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(files: Record<string, string>): unknown {
  const pipes: KudoPipe[] = Object.keys(files).map((name) => ({ key: name, name, file: join(dir, name), kind: 'Secret' }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const log = join(dir, 'termination-log');
  execFileSync('sh', ['-c', outputScript(pipes, log)]);
  return JSON.parse(readFileSync(log, 'utf8'));
}

describe('the pipe output script', () => {
  it('prints every file as JSON text, escaping what JSON needs', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB"x"\\y\n-----END CERTIFICATE-----\n';
    expect(run({ 'ca.crt': pem, 'conf.ini': 'a = "b"\tc\r\nd \\ e\n', 'empty.txt': '' })).toEqual({ 'ca.crt': pem, 'conf.ini': 'a = "b"\tc\r\nd \\ e\n', 'empty.txt': '' });
  });

  it('ends the last line with a newline when the file has none (documented)', () => {
    expect(run({ 'id.txt': 'abc' })).toEqual({ 'id.txt': 'abc\n' });
  });

  it('quotes a path with a quote in it for the shell', () => {
    const pipes: KudoPipe[] = [{ key: 'k', name: 'x', file: "/tmp/it's", kind: 'ConfigMap' }];
    expect(outputScript(pipes)).toContain(`'/tmp/it'\\''s'`);
  });
});

describe('a KUDO Pipe task', () => {
  const pkg = readPackageDir(KUDO_QUORUM, 'quorum-0.1.0');

  function withPod(pod: string, pipeSpec?: string): ReturnType<typeof importKudo> {
    const p = readPackageDir(KUDO_QUORUM, 'quorum-0.1.0');
    p.files.set('templates/cert-pod.yaml', pod);
    if (pipeSpec !== undefined) p.files.set('operator.yaml', p.files.get('operator.yaml')!.replace(/ {6}pipe:\n( {8}.*\n)+/, pipeSpec));
    return importKudo(p);
  }

  it('becomes a Baton Pipe task whose Job keeps the init containers and adds the output container', () => {
    const result = importKudo(pkg);
    expect(errorsOf(result)).toEqual([]);
    const fw = parse(result.files.find((f) => f.path === 'framework.yaml')!.content) as { tasks: unknown[] };
    expect(fw.tasks).toContainEqual({ name: 'gen-certs', kind: 'Pipe', resources: ['gen-certs-pipe-job.yaml.ejs'], pipe: { kind: 'Secret', files: ['ca.crt'] } });
    const job = result.files.find((f) => f.path === 'templates/gen-certs-pipe-job.yaml.ejs')!.content;
    expect(job).toContain('kind: Job');
    expect(job).toContain('initContainers:\n        - name: gen');
    expect(job).toContain('- name: baton-pipe-output\n          image: busybox:1.36');
    expect(job).toContain('restartPolicy: OnFailure');
    const sts = result.files.find((f) => f.path === 'templates/statefulset.yaml.ejs')!.content;
    expect(sts).toContain('secretName: <%= (instance.name + "-pipe-gen-certs") %>');
  });

  it.each([
    ['a pod whose template actions shape the YAML', '{{ if .Params.X }}\napiVersion: v1\n{{ end }}\nkind: Pod\nspec: {}\n', undefined, /cannot become a Job: its template actions/],
    ['a template that is not a Pod', 'apiVersion: v1\nkind: ConfigMap\n', undefined, /does not render one Pod/],
    ['files for a ConfigMap and a Secret in one task', undefined, '      pipe:\n        - { file: /tmp/a, kind: Secret, key: a }\n        - { file: /tmp/b, kind: ConfigMap, key: b }\n', /both a ConfigMap and a Secret/],
    ['a relative file path', undefined, '      pipe:\n        - { file: tmp/a, kind: Secret, key: a }\n', /needs file \(an absolute path\)/],
  ])('refuses %s, located at the task', (_name, pod, spec, message) => {
    const result = withPod(pod ?? pkg.files.get('templates/cert-pod.yaml')!, spec);
    const errors = result.findings.filter((f) => f.level === 'error');
    // The task's own error, and the template that names its output (.Pipes.ca) is told the key is unknown.
    expect(errors.map((f) => `${f.at.file}:${f.at.line} ${f.code}`)).toEqual(['operator.yaml:37 IMPORT_TASK_PIPE', 'templates/statefulset.yaml:68 IMPORT_TEMPLATE_UNKNOWN_VARIABLE']);
    expect(errors[0]!.message).toMatch(message);
  });

  it('reports a .Pipes key no Pipe task declares, located in the template', () => {
    const p = readPackageDir(KUDO_QUORUM, 'quorum-0.1.0');
    p.files.set('templates/statefulset.yaml', p.files.get('templates/statefulset.yaml')!.replace('{{ .Pipes.ca }}', '{{ .Pipes.cert }}'));
    const result = importKudo(p);
    expect(errorsOf(result)).toEqual([expect.stringMatching(/^templates\/statefulset\.yaml:\d+:\d+ IMPORT_TEMPLATE_UNKNOWN_VARIABLE$/)]);
    expect(result.findings.find((f) => f.level === 'error')!.message).toContain('no Pipe task of operator.yaml has the key cert (keys: ca)');
  });
});
