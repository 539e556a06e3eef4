// Summarises a .cpuprofile: self time per function and per file group (ours, node-red, undici, node).
//   node bench/profile-summary.mjs bench/.profiles/<file>.cpuprofile
import fs from 'node:fs';
const prof = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++)
  self.set(prof.samples[i], (self.get(prof.samples[i]) || 0) + (dt[i] || 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const group = (url) =>
  !url
    ? 'native/gc/idle'
    : /node-red-mindsdb|\/nodes\/(client|runtime)\/|\/nodes\/mindsdb-[\w-]+\.js/.test(url)
      ? 'ours'
      : /@node-red|node-red\//.test(url)
        ? 'node-red'
        : /undici/.test(url)
          ? 'undici'
          : url.startsWith('node:')
            ? 'node core'
            : 'other';
const groups = new Map();
const fns = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const g = group(cf.url);
  groups.set(g, (groups.get(g) || 0) + t);
  const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
  fns.set(key, (fns.get(key) || 0) + t);
}
const pct = (t) => `${((100 * t) / total).toFixed(1)}%`;
console.log(
  'by group:',
  [...groups]
    .sort((a, b) => b[1] - a[1])
    .map(([g, t]) => `${g} ${pct(t)}`)
    .join(', '),
);
for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] || 30)))
  console.log(pct(t).padStart(6), k);
