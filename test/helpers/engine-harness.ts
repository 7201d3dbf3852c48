/**
 * For a file whose tests run the engine in process against one simulated cluster: registers
 * beforeAll/afterAll that start the cluster and a client on it, and one renderer for the file.
 *
 *   const world = clusterForFile();
 *   it('...', async () => { await reconcileSource({ client: world.client, renderer: world.renderer, ... }); });
 */
import { afterAll, beforeAll } from 'vitest';
import type { ClusterOptions } from '../../src/cluster/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import { startTestCluster, type TestCluster } from './cluster.js';

export interface ClusterForFile {
  /** Set once beforeAll has run. */
  readonly cluster: TestCluster;
  readonly client: HttpKubeClient;
  readonly renderer: Renderer;
}

export function clusterForFile(options: ClusterOptions = {}): ClusterForFile {
  let cluster: TestCluster | undefined;
  let client: HttpKubeClient | undefined;
  const renderer = new Renderer();
  beforeAll(async () => {
    cluster = await startTestCluster(options);
    client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  });
  afterAll(async () => {
    client?.close();
    await cluster?.stop();
    await renderer.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('clusterForFile: used before beforeAll ran');
    return value;
  };
  return {
    get cluster() { return started(cluster); },
    get client() { return started(client); },
    renderer,
  };
}
