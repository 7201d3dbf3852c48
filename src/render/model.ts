/** The loaded, schema-checked repository model the renderer works on. */
import type { FrameworkDecl, InstanceDecl, ParamDecl, RepositoryDecl } from './schemas.js';
import type { Problem } from './problems.js';
import type { SourceFile } from './source.js';

export interface TemplateFile {
  /** Name relative to the framework's templates/ folder, e.g. `statefulset.yaml.ejs`. */
  name: string;
  /** Repository-relative path. */
  file: string;
  text: string;
  /** Content identity (Git blob oid or a hash) used to cache compiled templates. */
  id: string;
}

export interface Framework {
  name: string;
  version: string;
  /** `frameworks/<name>/<version>` */
  dir: string;
  decl: FrameworkDecl;
  params: ParamDecl[];
  templates: Map<string, TemplateFile>;
  frameworkSource: SourceFile;
  paramsSource: SourceFile | undefined;
}

export interface Instance {
  name: string;
  namespace: string;
  /** `instances/<namespace>/<name>.yaml` */
  file: string;
  decl: InstanceDecl;
  source: SourceFile;
}

export interface RepositorySettings {
  decl: RepositoryDecl;
  /** Default step timeout in seconds (baton.yaml `defaults.stepTimeout`, else 600). */
  stepTimeoutSeconds: number;
}

/** What a loader returns: a value with its warnings, or only problems. */
export type Loaded<T> = { ok: true; value: T; problems: Problem[] } | { ok: false; problems: Problem[] };
