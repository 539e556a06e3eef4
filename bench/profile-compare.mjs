// Compares two .cpuprofile files of the same workload (say the sql node and the bare node): self
// time per function in µs per message for each, and the difference, largest first.
//   node bench/profile-compare.mjs <a.cpuprofile> <b.cpuprofile> <messages> [rows]
import fs from 'node:fs';

const [fileA, fileB, messagesArg, rowsArg] = process.argv.slice(2);
const messages = Number(messagesArg);
if (!fileA || !fileB || !(messages > 0)) {
  console.error('usage: node bench/profile-compare.mjs <a.cpuprofile> <b.cpuprofile> <messages> [rows]');
  process.exit(2);
}

/** Self time per function (name, file, line) in µs per message. */
function perMessage(file) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const bySample = new Map();
  for (let i = 0; i < prof.samples.length; i++)
    bySample.set(prof.samples[i], (bySample.get(prof.samples[i]) || 0) + (prof.timeDeltas[i] || 0));
  const fns = new Map();
  for (const [id, us] of bySample) {
    const cf = nodes.get(id).callFrame;
    const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
    fns.set(key, (fns.get(key) || 0) + us / messages);
  }
  return fns;
}

const a = perMessage(fileA);
const b = perMessage(fileB);
const busy = (m) => [...m].filter(([k]) => !/^\((idle|program)\) /.test(k)).reduce((sum, [, v]) => sum + v, 0);
console.log(`busy µs/msg: a ${busy(a).toFixed(1)}, b ${busy(b).toFixed(1)}`);
console.log('  a−b      a      b  function');
const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => [k, a.get(k) || 0, b.get(k) || 0]);
rows.sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]));
for (const [k, x, y] of rows.slice(0, Number(rowsArg || 40)))
  console.log(`${(x - y).toFixed(2).padStart(6)} ${x.toFixed(2).padStart(6)} ${y.toFixed(2).padStart(6)}  ${k}`);
