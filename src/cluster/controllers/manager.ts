/** Starts every simulated controller against an API server, as kube-controller-manager plus kubelets. */
import type { KubeClient } from '../../kube/client.js';
import { createKubeClient } from '../../kube/http-client.js';
import type { UrlOptions } from '../../kube/connection.js';
import { bootstrapCluster } from './bootstrap.js';
import { realClock } from './runtime/clock.js';
import type { Controller } from './runtime/controller.js';
import { ControllerRunner } from './runtime/runner.js';
import type { ControllerManager, ControllerOptions } from './types.js';
import { allControllers } from './registry.js';

/** The controllers run beside their own API server: https on loopback without a CA is trusted as is. */
function connectionOf(server: ControllerOptions['server']): UrlOptions {
  const options: UrlOptions = { url: server.url };
  if (server.token !== undefined) options.token = server.token;
  if (server.caData !== undefined) options.caData = server.caData;
  else if (/^https:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/.test(server.url)) options.insecureSkipTlsVerify = true;
  return options;
}

export function startControllers(options: ControllerOptions, controllers: Controller[] = allControllers()): ControllerManager {
  const clock = options.clock ?? realClock;
  let runner: ControllerRunner | undefined;
  let close = (): void => {};
  let stopping = false;
  const abort = new AbortController();

  const started = (async (): Promise<void> => {
    let client: KubeClient;
    if (options.client) client = options.client;
    else {
      const http = await createKubeClient(connectionOf(options.server));
      close = () => http.close();
      client = http;
    }
    await bootstrapCluster(client, options.nodes, clock, abort.signal);
    if (stopping) return;
    const runnerOptions = { client, clock, timing: options.timing, nodes: options.nodes, controllers };
    runner = new ControllerRunner(options.onError ? { ...runnerOptions, onError: options.onError } : runnerOptions);
    await runner.start();
  })();
  // A failed start is reported through ready() and onError; never an unhandled rejection.
  started.catch((err: unknown) => options.onError?.('startup', '', err));

  return {
    ready: () => started,
    async settled(horizonMs) {
      await started.catch(() => {});
      await runner?.settled(horizonMs);
    },
    async stop() {
      stopping = true;
      abort.abort();
      await started.catch(() => {});
      await runner?.stop();
      close();
    },
  };
}
