#!/usr/bin/env node
// Simulated people with a known taste, for trying `webgrade weights fit` and `analyse --ratings/--pairs`.
// Usage: node scripts/simulated-judgements.mjs <results.jsonl> <metric=weight,...> [--noise 0.5] [--seed 42] [--out-dir .]
// A page's quality is Σ weight × z(metric) (z over the file's rows, an unscorable score counting 0, as in an
// overall; files with repeats: use one repeat) plus N(0, noise²). Writes ratings.csv (the quality, rounded) and
// pairs.csv (about half of the within-requirement pairs; the winner has the higher quality plus N(0, noise²), a tie
// when the two are closer than 0.1).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const noise = Number(flag('--noise', '0.5'));
let seed = Number(flag('--seed', '42'));
const outDir = flag('--out-dir', '.');
const [results, spec] = args;
if (!results || !spec || !Number.isFinite(noise) || !(seed > 0)) {
  console.error('usage: node scripts/simulated-judgements.mjs <results.jsonl> <metric=weight,...> [--noise 0.5] [--seed 42] [--out-dir .]');
  process.exit(2);
}
const taste = spec
  .split(',')
  .map((kv) => kv.split('='))
  .map(([id, w]) => [id, Number(w)]);
const rows = readFileSync(results, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l))
  .filter((r) => r.status === 'ok');
const score = (r, id) => r.metrics.find((m) => m.id === id)?.score ?? null;
const z = {};
for (const [id] of taste) {
  const xs = rows.map((r) => score(r, id)).filter((x) => typeof x === 'number');
  if (xs.length < 2) {
    console.error(`${id}: fewer than 2 scores in ${results}`);
    process.exit(2);
  }
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mu) ** 2, 0) / xs.length) || 1;
  z[id] = (r) => (typeof score(r, id) === 'number' ? (score(r, id) - mu) / sd : 0);
}
// Park–Miller, so the same seed gives the same people.
const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const gauss = () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
const quality = rows.map((r) => taste.reduce((s, [id, w]) => s + w * z[id](r), 0) + noise * gauss());
writeFileSync(
  join(outDir, 'ratings.csv'),
  ['model,requirement,rating', ...rows.map((r, i) => `${r.model},${r.requirement},${quality[i].toFixed(3)}`)].join('\n') + '\n',
);
const pairs = ['requirement,model_a,model_b,winner'];
for (let i = 0; i < rows.length; i++) {
  for (let j = i + 1; j < rows.length; j++) {
    if (rows[i].requirement !== rows[j].requirement || rand() > 0.5) continue;
    const d = quality[i] - quality[j] + noise * gauss();
    pairs.push(`${rows[i].requirement},${rows[i].model},${rows[j].model},${Math.abs(d) < 0.1 ? 'tie' : d > 0 ? 'a' : 'b'}`);
  }
}
writeFileSync(join(outDir, 'pairs.csv'), pairs.join('\n') + '\n');
console.log(`wrote ${join(outDir, 'ratings.csv')} (${rows.length} pages) and ${join(outDir, 'pairs.csv')} (${pairs.length - 1} judgements)`);
