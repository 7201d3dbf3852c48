/**
 * `meta.k8s.io/v1` Table responses for `kubectl get`: the Name column, the kind's printer columns (or
 * a CRD's additionalPrinterColumns), and each row's object as PartialObjectMetadata so kubectl can
 * show namespaces and labels.
 */
import type { KubeObject } from '../../kube/object.js';
import type { PrinterColumn, ResourceType } from '../store/types.js';
import { humanDuration } from './duration.js';
import { evalJsonPath } from './jsonpath.js';
import { type Cell, type ColumnDefinition, type Printer, defaultPrinter, printers } from './printers.js';
import { clusterPrinters } from './printers-cluster.js';
import { morePrinters } from './printers-more.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME: ColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };

export function printerFor(type: ResourceType): Printer {
  if (type.printerColumns && type.printerColumns.length > 0) return customPrinter(type.printerColumns);
  const key = `${type.group}/${type.resource}`;
  return printers[key] ?? clusterPrinters[key] ?? morePrinters[key] ?? defaultPrinter;
}

function customPrinter(columns: readonly PrinterColumn[]): Printer {
  return {
    columns: columns.map((c) => ({ name: c.name, type: tableType(c.type), format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
    cells: (obj, now) => columns.map((c) => customCell(obj, c, now)),
  };
}

function tableType(t: string): ColumnDefinition['type'] {
  return t === 'integer' || t === 'number' || t === 'boolean' || t === 'date' ? t : 'string';
}

function customCell(obj: KubeObject, c: PrinterColumn, now: number): Cell {
  const values = evalJsonPath(obj, c.jsonPath);
  if (values.length === 0) return null;
  const v = values[0];
  if (c.type === 'date' && typeof v === 'string') return humanDuration(now - Date.parse(v));
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

function rowObject(obj: KubeObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return partialObjectMetadata(obj);
}

export function partialObjectMetadata(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export interface TableOptions {
  include: IncludeObject;
  /** Watches send the column definitions once, then rows only (the real server's NoHeaders). */
  noHeaders?: boolean;
  now?: number;
  resourceVersion?: string;
  continue?: string;
}

export function toTable(type: ResourceType, objects: readonly KubeObject[], opts: TableOptions): Record<string, unknown> {
  const printer = printerFor(type);
  const now = opts.now ?? Date.now();
  const rows = objects.map((obj) => {
    const object = rowObject(obj, opts.include);
    const name = obj.metadata.name ?? '';
    const cells = printer.nameLast ? [...printer.cells(obj, now), name] : [name, ...printer.cells(obj, now)];
    return { cells, ...(object ? { object } : {}) };
  });
  const metadata: Record<string, string> = {};
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : printer.nameLast ? [...printer.columns, { ...NAME, priority: 1 }] : [NAME, ...printer.columns],
    rows,
  };
}

export function parseIncludeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
