"""Shuffles from Python, one per line: random.shuffle (fair) or the wrong-range swap (biased).

Usage: python3 shuffles.py shuffle|biased [LINES] [N] [SEED]
"""
import random
import sys

kind = sys.argv[1]
lines = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
out = []
for _ in range(lines):
    deck = list(range(n))
    if kind == "shuffle":
        random.shuffle(deck)
    else:  # swap every position with one drawn from all n: n^n paths onto n! orders
        for i in range(n):
            j = random.randrange(n)
            deck[i], deck[j] = deck[j], deck[i]
    out.append(" ".join(map(str, deck)))
print("\n".join(out))
