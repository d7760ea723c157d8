// Summarise a CSV file into workspace/out/report.md: total of one numeric
// column per group, with each group's share. Runs the same under node and
// under skillrun.
const fs = require('fs');
const path = require('path');
const { parse } = require('./csv');

const WORKSPACE = process.env.WORKSPACE || '/workspace';
const [file, groupArg, sumArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: report.js FILE [GROUP [SUM]]');
  process.exit(2);
}

const [header, ...rows] = parse(fs.readFileSync(path.join(WORKSPACE, file), 'utf8'));
const isNum = (s) => s.trim() !== '' && !isNaN(Number(s));
const numeric = header.filter((_, i) => rows.every((r) => isNum(r[i])));
const group = groupArg || header[0];
const sum = sumArg || numeric[numeric.length - 1];
for (const [flag, col] of [['GROUP', group], ['SUM', sum]]) {
  if (!header.includes(col)) {
    console.error(`${file}: no column ${JSON.stringify(col)} for ${flag} (columns: ${header.join(', ')})`);
    process.exit(2);
  }
}

const gi = header.indexOf(group), si = header.indexOf(sum);
const totals = new Map();
for (const r of rows) totals.set(r[gi], (totals.get(r[gi]) || 0) + Number(r[si]));
const grand = [...totals.values()].reduce((a, b) => a + b, 0);
const table = [...totals.entries()].sort((a, b) => b[1] - a[1])
  .map(([g, t]) => [g, t.toFixed(2), (100 * t / grand).toFixed(1) + '%']);

const widths = [group, sum, 'share'].map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
const line = (r) => '| ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |';
const sep = '| ' + widths.map((w, i) => (i === 0 ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ') + ' |';

const out = path.join(WORKSPACE, 'out');
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'report.md'),
  `# ${sum} by ${group}\n\nSource: \`${file}\`, ${rows.length} rows.\n\n` +
  [line([group, sum, 'share']), sep, ...table.map(line)].join('\n') +
  `\n\nTotal: ${grand.toFixed(2)}\n`);
const top = table[0];
console.log(`${rows.length} rows, ${table.length} groups, total ${sum} ${grand.toFixed(2)}; top ${group}: ${top[0]} (${top[2]}); wrote out/report.md`);
