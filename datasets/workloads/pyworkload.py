"""The Python program of the ``python`` dataset: six phases of typical interpreter work.

Run as ``python3 -B -S pyworkload.py TEXT_FILE SCALE`` (``-B``: no .pyc writes that would make a
second run differ; ``-S``: no site-packages scan, which depends on what is installed). Everything is
seeded; with ``PYTHONHASHSEED=0`` the run is deterministic. Phases, in order: word statistics with
regular expressions over a text file, shortest paths on a random graph (heapq), an n-body simulation
(floats), a JSON round trip of nested records, a small stack-machine interpreter running a prime
sieve, and sorting of objects by composite keys.
"""

from __future__ import annotations

import heapq
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass


class Lcg:
    """A 64-bit linear congruential generator (Knuth's MMIX constants): explicit and version-stable."""

    def __init__(self, seed: int) -> None:
        self.x = seed & 0xFFFFFFFFFFFFFFFF

    def next(self) -> int:
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return self.x >> 33

    def below(self, n: int) -> int:
        return self.next() % n

    def uniform(self) -> float:
        return self.next() / 2147483648.0


def words_phase(path: str) -> dict:
    text = open(path, encoding="ascii").read()
    words = re.findall(r"[A-Za-z]+", text)
    freq = Counter(w.lower() for w in words)
    numbers = [int(n) for n in re.findall(r"\b\d+\b", text)]
    sentences = re.split(r"[.!?;]\s+", text)
    lengths = Counter(len(s.split()) for s in sentences)
    bigrams = Counter(zip(words, words[1:]))
    vowels = re.compile(r"[aeiou]{2,}")
    return {
        "words": len(words),
        "distinct": len(freq),
        "top": freq.most_common(5),
        "numbers": sum(numbers),
        "longest_sentence": max(lengths),
        "bigrams": len(bigrams),
        "vowel_runs": sum(len(vowels.findall(w)) for w in list(freq)[:20000]),
    }


def graph_phase(rng: Lcg, n: int) -> int:
    adj: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for u in range(n):
        for _ in range(6):
            v = rng.below(n)
            adj[u].append((v, 1 + rng.below(100)))
    total = 0
    for src in range(0, n, max(1, n // 12)):
        dist = {src: 0}
        heap = [(0, src)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist.get(u, 1 << 60):
                continue
            for v, w in adj[u]:
                nd = d + w
                if nd < dist.get(v, 1 << 60):
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v))
        total += sum(dist.values()) % 1000003
    return total


def nbody_phase(rng: Lcg, bodies: int, steps: int) -> float:
    pos = [[rng.uniform() * 10 for _ in range(3)] for _ in range(bodies)]
    vel = [[0.0, 0.0, 0.0] for _ in range(bodies)]
    mass = [0.5 + rng.uniform() for _ in range(bodies)]
    dt = 0.01
    for _ in range(steps):
        for i in range(bodies):
            xi, yi, zi = pos[i]
            ax = ay = az = 0.0
            for j in range(bodies):
                if i == j:
                    continue
                dx, dy, dz = pos[j][0] - xi, pos[j][1] - yi, pos[j][2] - zi
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                f = mass[j] / (r2 * r2 ** 0.5)
                ax += f * dx
                ay += f * dy
                az += f * dz
            vel[i][0] += ax * dt
            vel[i][1] += ay * dt
            vel[i][2] += az * dt
        for i in range(bodies):
            for k in range(3):
                pos[i][k] += vel[i][k] * dt
    return sum(m * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2) for m, v in zip(mass, vel))


def json_phase(rng: Lcg, records: int) -> int:
    data = [
        {
            "id": i,
            "name": f"item-{rng.below(100000)}",
            "tags": [f"t{rng.below(50)}" for _ in range(rng.below(6))],
            "price": round(rng.uniform() * 100, 2),
            "stock": {"warehouse": rng.below(20), "count": rng.below(1000)},
            "active": rng.below(2) == 1,
        }
        for i in range(records)
    ]
    text = json.dumps(data, sort_keys=True)
    back = json.loads(text)
    pretty = json.dumps(back[: records // 4], indent=2)
    return len(text) + len(pretty) + sum(r["stock"]["count"] for r in back)


def vm_phase(limit: int) -> int:
    """A stack machine interpreting a prime sieve written in its own bytecode."""
    prog = [
        ("push", 2), ("store", "i"),
        ("label", "outer"), ("load", "i"), ("push", limit), ("lt",), ("jz", "done"),
        ("load", "i"), ("isprime",), ("jz", "next"),
        ("load", "i"), ("load", "i"), ("mul",), ("store", "j"),
        ("label", "inner"), ("load", "j"), ("push", limit), ("lt",), ("jz", "next"),
        ("load", "j"), ("mark",), ("load", "j"), ("load", "i"), ("add",), ("store", "j"), ("jmp", "inner"),
        ("label", "next"), ("load", "i"), ("push", 1), ("add",), ("store", "i"), ("jmp", "outer"),
        ("label", "done"), ("halt",),
    ]
    labels = {ins[1]: k for k, ins in enumerate(prog) if ins[0] == "label"}
    composite = bytearray(limit)
    env: dict[str, int] = {}
    stack: list[int] = []
    pc = 0
    steps = 0
    while True:
        op = prog[pc]
        steps += 1
        code = op[0]
        pc += 1
        if code == "push":
            stack.append(op[1])
        elif code == "load":
            stack.append(env[op[1]])
        elif code == "store":
            env[op[1]] = stack.pop()
        elif code == "add":
            b = stack.pop()
            stack.append(stack.pop() + b)
        elif code == "mul":
            b = stack.pop()
            stack.append(stack.pop() * b)
        elif code == "lt":
            b = stack.pop()
            stack.append(1 if stack.pop() < b else 0)
        elif code == "jz":
            if stack.pop() == 0:
                pc = labels[op[1]]
        elif code == "jmp":
            pc = labels[op[1]]
        elif code == "isprime":
            stack.append(0 if composite[stack.pop()] else 1)
        elif code == "mark":
            composite[stack.pop()] = 1
        elif code == "label":
            pass
        elif code == "halt":
            break
    return sum(1 for k in range(2, limit) if not composite[k]) * 1000003 + steps % 1000003


@dataclass(order=True)
class Row:
    group: str
    score: float
    ident: int


def sort_phase(rng: Lcg, n: int) -> int:
    rows = [Row(f"g{rng.below(300):03d}", rng.uniform(), i) for i in range(n)]
    by_key = sorted(rows, key=lambda r: (r.group, -r.score))
    natural = sorted(rows)
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in by_key:
        groups[r.group].append(r)
    best = {g: max(rs, key=lambda r: r.score).ident for g, rs in groups.items()}
    return sum(best.values()) + natural[0].ident + by_key[-1].ident


def main() -> None:
    path, scale = sys.argv[1], float(sys.argv[2])
    rng = Lcg(20240607)
    out = {
        "words": words_phase(path),
        "graph": graph_phase(rng, int(6000 * scale)),
        "nbody": round(nbody_phase(rng, int(40 * scale ** 0.5), 40), 6),
        "json": json_phase(rng, int(30000 * scale)),
        "vm": vm_phase(int(60000 * scale)),
        "sort": sort_phase(rng, int(120000 * scale)),
    }
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
