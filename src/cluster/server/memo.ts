/**
 * Discovery and OpenAPI documents are rebuilt only when the registry changes (a CRD comes, changes or
 * goes): kubectl fetches them on every command, and the OpenAPI index hashes every document.
 */
export interface ChangeSource {
  onChange(listener: () => void): () => void;
}

export class RegistryMemo {
  private readonly cache = new Map<string, unknown>();
  private readonly unsubscribe: () => void;

  constructor(source: ChangeSource) {
    this.unsubscribe = source.onChange(() => this.cache.clear());
  }

  get<T>(key: string, build: () => T): T {
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = build();
    this.cache.set(key, value);
    return value;
  }

  close(): void {
    this.unsubscribe();
    this.cache.clear();
  }
}
