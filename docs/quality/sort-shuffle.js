// The classic broken shuffle: sort with a comparator that answers at random.
// Usage: node sort-shuffle.js [LINES] [N]  — prints LINES shuffles of 0..N-1, one per line.
const lines = Number(process.argv[2] ?? 20000);
const n = Number(process.argv[3] ?? 10);
const out = [];
for (let t = 0; t < lines; t++) {
  const deck = Array.from({ length: n }, (_, i) => i);
  deck.sort(() => Math.random() - 0.5);
  out.push(deck.join(" "));
}
process.stdout.write(out.join("\n") + "\n");
