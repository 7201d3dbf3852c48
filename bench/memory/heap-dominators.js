// Retained sizes in a V8 heap snapshot (the dominator tree, Cooper-Harvey-Kennedy), largest first, each
// with the chain of properties that holds it, e.g. `0.57 object DriftKeeper.renders < DriftKeeper`:
//   node --max-old-space-size=4000 bench/memory/heap-dominators.js FILE.heapsnapshot [ROWS]
// (sample-memory.js writes such a snapshot; a snapshot is taken after a full collection: live data only.)
import { readFileSync } from 'node:fs';

const snap = JSON.parse(readFileSync(process.argv[2], "utf8"));
const m = snap.snapshot.meta; const nf = m.node_fields, ef = m.edge_fields; const N = nf.length, E = ef.length;
const ntypes = m.node_types[0], etypes = m.edge_types[0]; const S = snap.strings, nodes = snap.nodes, edges = snap.edges;
const iT = nf.indexOf('type'), iN = nf.indexOf('name'), iS = nf.indexOf('self_size'), iE = nf.indexOf('edge_count');
const eT = ef.indexOf('type'), eN = ef.indexOf('name_or_index'), eTo = ef.indexOf('to_node');
const n = nodes.length / N;
const firstEdge = new Uint32Array(n + 1);
for (let i = 0, e = 0; i < n; i++) { firstEdge[i] = e; e += nodes[i * N + iE] * E; } firstEdge[n] = edges.length;
const weak = etypes.indexOf('weak'), shortcut = etypes.indexOf('shortcut');
// postorder DFS from root 0
const order = new Int32Array(n).fill(-1); const post = new Int32Array(n); let cnt = 0;
const stack = [0], it = new Uint32Array(n); order[0] = -2; it[0] = firstEdge[0];
while (stack.length) {
  const v = stack[stack.length - 1];
  if (it[v] < firstEdge[v + 1]) {
    const e = it[v]; it[v] += E;
    const t = edges[e + eT]; if (t === weak || t === shortcut) continue;
    const w = edges[e + eTo] / N; if (order[w] !== -1) continue;
    order[w] = -2; it[w] = firstEdge[w]; stack.push(w);
  } else { stack.pop(); order[v] = cnt; post[cnt++] = v; }
}
// predecessors
const predCount = new Uint32Array(n);
for (let v = 0; v < n; v++) if (order[v] >= 0) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += E) { const t = edges[e + eT]; if (t === weak || t === shortcut) continue; const w = edges[e + eTo] / N; if (order[w] >= 0) predCount[w]++; }
const predStart = new Uint32Array(n + 1); for (let v = 0; v < n; v++) predStart[v + 1] = predStart[v] + predCount[v];
const preds = new Uint32Array(predStart[n]); const fill = predStart.slice(0, n);
for (let v = 0; v < n; v++) if (order[v] >= 0) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += E) { const t = edges[e + eT]; if (t === weak || t === shortcut) continue; const w = edges[e + eTo] / N; if (order[w] >= 0) preds[fill[w]++] = v; }
const idom = new Int32Array(n).fill(-1); idom[0] = 0;
const intersect = (a, b) => { while (a !== b) { while (order[a] < order[b]) a = idom[a]; while (order[b] < order[a]) b = idom[b]; } return a; };
let changed = true;
while (changed) { changed = false;
  for (let k = cnt - 1; k >= 0; k--) { const v = post[k]; if (v === 0) continue; let d = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) { const u = preds[p]; if (idom[u] === -1) continue; d = d === -1 ? u : intersect(u, d); }
    if (d !== -1 && idom[v] !== d) { idom[v] = d; changed = true; } } }
const ret = new Float64Array(n); for (let v = 0; v < n; v++) if (order[v] >= 0) ret[v] = nodes[v * N + iS];
for (let k = 0; k < cnt; k++) { const v = post[k]; if (v !== 0 && idom[v] >= 0) ret[idom[v]] += ret[v]; }
console.log('total reachable MiB', (ret[0] / 1048576).toFixed(1));
// label each node by a property edge name pointing to it from its dominator (or any parent)
const label = new Array(n);
for (let v = 0; v < n; v++) if (order[v] >= 0) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += E) {
  const t = etypes[edges[e + eT]]; const w = edges[e + eTo] / N; if (idom[w] !== v) continue;
  const nm = (t === 'element' || t === 'hidden') ? `[${edges[e + eN]}]` : S[edges[e + eN]];
  label[w] = `${S[nodes[v * N + iN]].slice(0, 30)}.${String(nm).slice(0, 40)}`;
}
const rows = []; for (let v = 1; v < n; v++) if (ret[v] > 256 * 1024) rows.push(v);
rows.sort((a, b) => ret[b] - ret[a]);
const chain = (v) => { const out = []; for (let k = 0; k < 5 && v > 0; k++, v = idom[v]) out.push(label[v] || S[nodes[v * N + iN]].slice(0, 30)); return out.join(' < '); };
for (const v of rows.slice(0, Number(process.argv[3] || 60))) console.log((ret[v] / 1048576).toFixed(2).padStart(8), ntypes[nodes[v * N + iT]].padEnd(8), chain(v));

