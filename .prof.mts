import { fileURLToPath } from 'node:url';
import { DirectoryTree, Renderer, loadFramework, renderPlan, resolveParams } from './src/render/index.js';
const tree = new DirectoryTree(fileURLToPath(new URL('.', import.meta.url)));
const fw = await loadFramework(tree, 'zookeeper', '1.0.0');
if (!fw.ok) throw new Error('x');
const renderer = new Renderer({ cacheEntries: 0, execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof2'] });
for (let round = 0; round < 4; round++) {
  await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
    const resolved = resolveParams(fw.value.params, { REPLICAS: 3 + (i % 3), MEMORY: `${256 + (i % 4) * 128}Mi` });
    const r = await renderPlan({ framework: fw.value, instance: { name: `zk-${i}`, namespace: `team-${i % 10}` }, params: resolved.values, sensitiveValues: resolved.sensitiveValues, plan: 'deploy', renderer });
    if (!r.ok) throw new Error(r.problems[0]!.message);
  }));
}
await renderer.close();
