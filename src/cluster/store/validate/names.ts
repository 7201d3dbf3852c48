/** Name and label rules, with the real server's wording (kubectl users recognise these messages). */
import { cause, type Cause } from '../errors.js';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path';

export function checkName(field: string, name: string, rule: NameRule): Cause[] {
  switch (rule) {
    case 'path':
      return name === '.' || name === '..' || /[/%]/.test(name) ? [cause.invalid(field, name, 'may not contain \'/\' or \'%\'')] : [];
    case 'label':
      if (name.length > 63) return [cause.invalid(field, name, 'must be no more than 63 characters')];
      return LABEL.test(name) ? [] : [cause.invalid(field, name, LABEL_MSG)];
    case 'dns1035':
      if (name.length > 63) return [cause.invalid(field, name, 'must be no more than 63 characters')];
      return DNS1035.test(name) ? [] : [cause.invalid(field, name, DNS1035_MSG)];
    case 'subdomain':
      if (name.length > 253) return [cause.invalid(field, name, 'must be no more than 253 characters')];
      return SUBDOMAIN.test(name) ? [] : [cause.invalid(field, name, SUBDOMAIN_MSG)];
  }
}

/** Label keys (optional DNS prefix + name) and values. */
export function checkLabels(field: string, labels: unknown): Cause[] {
  if (labels === undefined) return [];
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return [cause.typeInvalid(field, labels, 'object')];
  const out: Cause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const slash = k.lastIndexOf('/');
    const prefix = slash >= 0 ? k.slice(0, slash) : undefined;
    const name = slash >= 0 ? k.slice(slash + 1) : k;
    if (!QUALIFIED.test(name) || name.length > 63 || (prefix !== undefined && !SUBDOMAIN.test(prefix))) {
      out.push(cause.invalid(field, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
    }
    if (typeof v !== 'string') out.push(cause.typeInvalid(`${field}.${k}`, v, 'string'));
    else if (v.length > 63 || !LABEL_VALUE.test(v)) {
      out.push(cause.invalid(`${field}`, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
    }
  }
  return out;
}

/** The rule each kind applies to metadata.name. */
export function nameRuleFor(group: string, kind: string): NameRule {
  if (kind === 'Namespace') return 'label';
  if (group === '' && kind === 'Service') return 'dns1035';
  if (group === 'rbac.authorization.k8s.io') return 'path';
  return 'subdomain';
}
