/** Inline YAML fixtures for gate tables. */
import yaml from 'js-yaml';
import type { KubeObject } from '../../../src/kube/object.js';
import type { GateContext } from '../../../src/plans/gates/index.js';

export function obj(text: string): KubeObject {
  return yaml.load(text, { schema: yaml.CORE_SCHEMA }) as KubeObject;
}

export const NOW = new Date('2026-01-01T12:00:00Z');

export function ctx(extra: Partial<GateContext> = {}): GateContext {
  return { rules: [], now: NOW, imagePullGraceSeconds: 120, batch: [], ...extra };
}
