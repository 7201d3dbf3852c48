/**
 * Marathon placement constraints -> Kubernetes scheduling: UNIQUE -> required pod anti-affinity,
 * GROUP_BY and MAX_PER -> topology spread, CLUSTER/IS/LIKE/UNLIKE on node attributes -> node affinity.
 * A regular expression that is not a plain list of alternatives cannot become a node selector term and
 * is reported. Placement is evaluated at import time (it usually comes from an option as JSON text).
 */
import type { FindingLog, SourceLocation } from '../report.js';
import { js, type Tree } from './emit.js';

const KEYS: Record<string, string> = {
  hostname: 'kubernetes.io/hostname',
  '@hostname': 'kubernetes.io/hostname',
  '@zone': 'topology.kubernetes.io/zone',
  zone: 'topology.kubernetes.io/zone',
  '@region': 'topology.kubernetes.io/region',
  region: 'topology.kubernetes.io/region',
};

export interface Scheduling {
  affinity?: Tree;
  topologySpreadConstraints?: Tree[];
}

function parseConstraints(text: string): string[][] | undefined {
  const t = text.trim();
  if (t === '') return [];
  if (t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (Array.isArray(v) && v.every((c) => Array.isArray(c) && c.every((x) => typeof x === 'string'))) return v;
    } catch {
      return undefined;
    }
    return undefined;
  }
  return t.split(',').map((c) => c.trim().split(':'));
}

function key(field: string, at: SourceLocation, log: FindingLog): string {
  const k = KEYS[field];
  if (k) return k;
  log.mapped('IMPORT_DCOS_PLACEMENT_ATTRIBUTE', at, `placement attribute ${field} is read as the node label ${field}; label your nodes accordingly`);
  return field;
}

/** Literal alternatives of a regular expression (`a|b|c`), or undefined when it is a real pattern. */
function alternatives(re: string): string[] | undefined {
  const body = re.replace(/^\^?\(?/, '').replace(/\)?\$?$/, '');
  const alts = body.split('|');
  return alts.every((a) => /^[A-Za-z0-9_.-]+$/.test(a)) ? alts : undefined;
}

export function placementToScheduling(text: string, selector: string, at: SourceLocation, log: FindingLog): Scheduling {
  const constraints = parseConstraints(text);
  if (constraints === undefined) {
    log.error('IMPORT_DCOS_PLACEMENT', at, `placement ${JSON.stringify(text)} is neither Marathon JSON constraints nor field:OPERATOR[:value]`);
    return {};
  }
  const out: Scheduling = {};
  const antiAffinity: Tree[] = [];
  const nodeTerms: Tree[] = [];
  const spread: Tree[] = [];
  const labelSelector = { matchLabels: js(selector) };
  for (const c of constraints) constraint(c, { antiAffinity, nodeTerms, spread, labelSelector }, at, log);
  const affinity: Record<string, Tree> = {};
  if (antiAffinity.length > 0) affinity.podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: antiAffinity };
  if (nodeTerms.length > 0) affinity.nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: nodeTerms }] } };
  if (Object.keys(affinity).length > 0) out.affinity = affinity;
  if (spread.length > 0) out.topologySpreadConstraints = spread;
  return out;
}

interface Terms {
  antiAffinity: Tree[];
  nodeTerms: Tree[];
  spread: Tree[];
  labelSelector: Tree;
}

/** One Marathon constraint into the matching Kubernetes term. */
function constraint(c: string[], t: Terms, at: SourceLocation, log: FindingLog): void {
  const { antiAffinity, nodeTerms, spread, labelSelector } = t;
  const [field = '', op = '', value] = c;
  const k = key(field, at, log);
  switch (op.toUpperCase()) {
    case 'UNIQUE':
      antiAffinity.push({ labelSelector, topologyKey: k });
      log.mapped('IMPORT_DCOS_PLACEMENT', at, `${field}:UNIQUE -> required pod anti-affinity on ${k}`);
      break;
    case 'GROUP_BY':
      spread.push({ maxSkew: 1, topologyKey: k, whenUnsatisfiable: 'ScheduleAnyway', labelSelector });
      log.mapped('IMPORT_DCOS_PLACEMENT', at, `${field}:GROUP_BY -> topology spread over ${k} (maxSkew 1, ScheduleAnyway)`);
      break;
    case 'MAX_PER':
      spread.push({ maxSkew: Number(value ?? 1), topologyKey: k, whenUnsatisfiable: 'DoNotSchedule', labelSelector });
      log.mapped('IMPORT_DCOS_PLACEMENT', at, `${field}:MAX_PER:${value ?? ''} -> topology spread over ${k} with maxSkew ${value ?? 1} (Kubernetes bounds the difference between domains, not the count per domain)`);
      break;
    case 'CLUSTER':
    case 'IS':
      nodeTerms.push({ key: k, operator: 'In', values: [value ?? ''] });
      log.mapped('IMPORT_DCOS_PLACEMENT', at, `${field}:${op}:${value ?? ''} -> required node affinity ${k} In [${value ?? ''}]`);
      break;
    case 'LIKE':
    case 'UNLIKE': {
      const alts = alternatives(value ?? '');
      if (!alts) {
        log.untranslated('IMPORT_DCOS_PLACEMENT_REGEX', at, `${field}:${op}:${value ?? ''}: a regular expression has no node-affinity counterpart (only lists of values); left out`);
        break;
      }
      nodeTerms.push({ key: k, operator: op.toUpperCase() === 'LIKE' ? 'In' : 'NotIn', values: alts });
      log.mapped('IMPORT_DCOS_PLACEMENT', at, `${field}:${op}:${value ?? ''} -> required node affinity ${k} ${op.toUpperCase() === 'LIKE' ? 'In' : 'NotIn'} [${alts.join(', ')}]`);
      break;
    }
    default:
      log.untranslated('IMPORT_DCOS_PLACEMENT_OPERATOR', at, `placement operator ${op} has no Kubernetes counterpart; left out`);
  }
}
