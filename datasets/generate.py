#!/usr/bin/env python3
"""Seeded generators of the inputs of the shipped datasets (nothing is downloaded).

Every generator draws only from ``random.Random(seed).random()`` / ``getrandbits()``, whose streams are
stable across CPython versions (Mersenne Twister), and writes ASCII with ``\\n`` line ends, so the same
arguments give byte-identical files anywhere. The manifest stores each input's sha256 so a rebuild
can tell a changed generator from a changed tool.

Usage: ``python3 generate.py KIND --seed S [size options] -o FILE`` with KIND one of
text, records, lines, sql, csrc, binary.
"""

from __future__ import annotations

import argparse
import bisect
import math
import random


class Rng:
    """The few draws the generators need, built on `random.Random.random` only (version-stable)."""

    def __init__(self, seed: int) -> None:
        self._r = random.Random(seed)
        self.random = self._r.random

    def below(self, n: int) -> int:
        return min(int(self._r.random() * n), n - 1)

    def between(self, lo: int, hi: int) -> int:
        """Integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def normal(self) -> float:
        u1 = max(self._r.random(), 1e-12)
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * self._r.random())

    def bytes(self, n: int) -> bytes:
        return bytes(self.below(256) for _ in range(n))


class Zipf:
    """Draw ranks 0..n-1 with probability ~ 1/(rank+1)^s (word and key popularity)."""

    def __init__(self, rng: Rng, n: int, s: float = 1.1) -> None:
        self.rng = rng
        acc, total = [], 0.0
        for k in range(n):
            total += 1.0 / (k + 1) ** s
            acc.append(total)
        self.cum = [a / total for a in acc]

    def draw(self) -> int:
        return min(bisect.bisect_left(self.cum, self.rng.random()), len(self.cum) - 1)


_ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "st", "str", "th", "tr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "oo", "ou", "y"]
_CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "ng", "nt", "rk", "st", "ck", "sh"]


def vocabulary(rng: Rng, n: int) -> list[str]:
    """``n`` distinct pronounceable pseudo-words (1-4 syllables), shortest first."""
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < n:
        u = rng.random()
        syllables = 1 if u < 0.45 else 2 if u < 0.8 else 3 if u < 0.95 else 4
        w = "".join(rng.pick(_ONSETS) + rng.pick(_VOWELS) + rng.pick(_CODAS) for _ in range(syllables))
        if len(w) >= 2 and w not in seen:
            seen.add(w)
            words.append(w)
    return sorted(words, key=len)  # frequent (low-rank) words are the short ones, as in real text


def gen_text(rng: Rng, n_bytes: int) -> str:
    """Pseudo-English prose: Zipf-distributed words, sentences and paragraphs (compressible like text)."""
    words = vocabulary(rng, 20000)
    zipf = Zipf(rng, len(words))
    out: list[str] = []
    size = 0
    while size < n_bytes:
        para = []
        for _ in range(rng.between(2, 8)):
            sent = [words[zipf.draw()] for _ in range(rng.between(4, 24))]
            sent[0] = sent[0].capitalize()
            if rng.random() < 0.15:
                sent.insert(rng.between(1, len(sent) - 1), str(rng.between(1, 9999)))
            para.append(" ".join(sent) + rng.pick([".", ".", ".", "!", "?", ";"]))
        text = " ".join(para)
        lines, line = [], ""
        for w in text.split(" "):
            if len(line) + len(w) + 1 > 72:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        lines.append(line)
        chunk = "\n".join(lines) + "\n\n"
        out.append(chunk)
        size += len(chunk)
    return "".join(out)[:n_bytes].rstrip(" ") + "\n"


_CITIES = ["Aachen", "Bergen", "Cork", "Delft", "Esbjerg", "Faro", "Graz", "Haarlem", "Ilulissat", "Jena",
           "Kaunas", "Lund", "Mainz", "Nantes", "Oulu", "Porto", "Quimper", "Riga", "Siena", "Turku",
           "Uppsala", "Varna", "Wroclaw", "Ypres", "Zadar"]
_METHODS = ["GET"] * 12 + ["POST"] * 4 + ["PUT", "DELETE", "HEAD", "PATCH"]
_STATUS = [200] * 30 + [201, 204, 301, 302] + [304] * 5 + [400, 401, 403] + [404] * 4 + [500, 502, 503]


def gen_records(rng: Rng, rows: int) -> str:
    """Web-server-like CSV log: time,user,city,method,path,status,bytes,latency_ms."""
    words = vocabulary(rng, 600)
    users = Zipf(rng, 5000, 1.05)
    paths = Zipf(rng, len(words), 1.2)
    lines = ["time,user,city,method,path,status,bytes,latency_ms"]
    t = 1_700_000_000
    for _ in range(rows):
        t += rng.between(0, 3)
        u = users.draw()
        city = _CITIES[(u * 7 + rng.below(3)) % len(_CITIES)]
        path = f"/api/v{rng.between(1, 3)}/{words[paths.draw()]}/{rng.below(100000)}"
        status = rng.pick(_STATUS)
        size = int(math.exp(7.0 + 1.5 * rng.normal())) if status < 300 else rng.between(0, 512)
        latency = round(math.exp(2.5 + 0.8 * rng.normal()), 2)
        lines.append(f"{t},u{u:05d},{city},{rng.pick(_METHODS)},{path},{status},{size},{latency}")
    return "\n".join(lines) + "\n"


def gen_lines(rng: Rng, n_lines: int) -> str:
    """Lines to sort: ``KEY<TAB>NUMBER<TAB>TEXT`` with repeated keys and numbers of varying width."""
    words = vocabulary(rng, 8000)
    zipf = Zipf(rng, len(words), 0.9)
    out = []
    for _ in range(n_lines):
        key = words[zipf.draw()]
        number = int(10 ** (rng.random() * 7))
        text = " ".join(words[zipf.draw()] for _ in range(rng.between(1, 8)))
        out.append(f"{key}\t{number}\t{text}")
    return "\n".join(out) + "\n"


def gen_sql(rng: Rng, customers: int, products: int, orders: int) -> str:
    """A SQL script for sqlite3: schema, bulk inserts in transactions, indexes, reports, updates."""
    words = vocabulary(rng, 3000)
    cats = ["tools", "books", "garden", "toys", "food", "music", "sport", "office", "kitchen", "bath"]
    out = [
        "PRAGMA foreign_keys = ON;",
        "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL, since INTEGER);",
        "CREATE TABLE product (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, price REAL);",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customer(id), "
        "product INTEGER REFERENCES product(id), qty INTEGER, day INTEGER, note TEXT);",
    ]

    def batch(rows: list[str]) -> None:
        for i in range(0, len(rows), 500):
            out.append("BEGIN;")
            out.extend(rows[i:i + 500])
            out.append("COMMIT;")

    batch([f"INSERT INTO customer VALUES ({i}, '{rng.pick(words).capitalize()} {rng.pick(words).capitalize()}', "
           f"'{rng.pick(_CITIES)}', {rng.between(0, 3650)});" for i in range(1, customers + 1)])
    batch([f"INSERT INTO product VALUES ({i}, '{rng.pick(words)}-{rng.pick(words)}', '{rng.pick(cats)}', "
           f"{round(1 + 200 * rng.random() ** 2, 2)});" for i in range(1, products + 1)])
    cz = Zipf(rng, customers, 0.8)
    pz = Zipf(rng, products, 1.0)
    batch([f"INSERT INTO orders VALUES ({i}, {cz.draw() + 1}, {pz.draw() + 1}, {rng.between(1, 9)}, "
           f"{rng.between(0, 3650)}, '{' '.join(rng.pick(words) for _ in range(rng.between(0, 6)))}');"
           for i in range(1, orders + 1)])
    out += [
        "CREATE INDEX orders_customer ON orders(customer);",
        "CREATE INDEX orders_product ON orders(product, day);",
        "CREATE INDEX customer_city ON customer(city);",
        "ANALYZE;",
        "SELECT c.city, count(*), round(sum(o.qty * p.price), 2) FROM orders o JOIN customer c ON c.id = o.customer "
        "JOIN product p ON p.id = o.product GROUP BY c.city ORDER BY 3 DESC;",
        "SELECT p.category, count(DISTINCT o.customer), avg(o.qty) FROM orders o JOIN product p ON p.id = o.product "
        "GROUP BY p.category ORDER BY 2 DESC;",
        "SELECT name, total FROM (SELECT c.name, sum(o.qty * p.price) AS total, rank() OVER "
        "(PARTITION BY c.city ORDER BY sum(o.qty * p.price) DESC) AS r FROM orders o JOIN customer c ON "
        "c.id = o.customer JOIN product p ON p.id = o.product GROUP BY c.id) WHERE r <= 3 ORDER BY total DESC LIMIT 40;",
        "SELECT day / 30 AS month, count(*), sum(qty) FROM orders GROUP BY month ORDER BY month;",
        "SELECT count(*) FROM orders WHERE note LIKE '%" + rng.pick(words)[:3] + "%';",
        "SELECT o.customer, group_concat(DISTINCT p.category) FROM orders o JOIN product p ON p.id = o.product "
        "WHERE o.customer <= 2000 GROUP BY o.customer ORDER BY o.customer LIMIT 50;",
        "WITH RECURSIVE fib(n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, (a + b) % 1000000007 FROM fib "
        f"WHERE n < {orders * 10}) SELECT max(a), count(*) FROM fib;",
        "BEGIN;",
        "UPDATE product SET price = round(price * 1.07, 2) WHERE category IN ('tools', 'garden', 'kitchen');",
        "UPDATE orders SET qty = qty + 1 WHERE day % 7 = 3;",
        "DELETE FROM orders WHERE qty > 8 AND day < 400;",
        "COMMIT;",
        "SELECT c.city, p.category, sum(o.qty) FROM orders o JOIN customer c ON c.id = o.customer JOIN product p "
        "ON p.id = o.product GROUP BY 1, 2 HAVING sum(o.qty) > 50 ORDER BY 3 DESC LIMIT 30;",
        "CREATE TABLE summary AS SELECT customer, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer;",
        "SELECT n, count(*) FROM summary GROUP BY n ORDER BY n;",
        "SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM summary s WHERE s.customer = o.customer "
        "AND s.q > 100);",
        "DROP INDEX orders_product;",
        "SELECT product, max(day) - min(day) FROM orders GROUP BY product ORDER BY 2 DESC LIMIT 20;",
    ]
    return "\n".join(out) + "\n"


def gen_csrc(rng: Rng, functions: int) -> str:
    """A self-contained C translation unit (no #include) with many varied functions, for cc1 -O2."""
    out = [
        "typedef unsigned long u64;",
        "typedef struct { double x, y, z; int tag; } vec;",
        "typedef struct node { int key; double val; struct node *next; } node;",
        "static u64 state = 88172645463325252UL;",
        "static u64 next_rand(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }",
        "static double table[256];",
        "static int itab[1024];",
        "static vec pts[512];",
    ]
    names: list[str] = []
    ops = ["+", "-", "*", "^", "&", "|"]
    for f in range(functions):
        name = f"fn_{f:05d}"
        kind = rng.below(6)
        body: list[str] = []
        if kind == 0:  # integer loop nest
            a, b = rng.between(2, 9), rng.between(3, 17)
            body += [f"int fn_{f:05d}(int n, int m) {{", "  int acc = 0;",
                     f"  for (int i = 0; i < n; i++) {{",
                     f"    for (int j = 0; j < m; j += {rng.between(1, 3)}) {{",
                     f"      acc {rng.pick(['+=', '^=', '-='])} (i * {a} {rng.pick(ops)} j) % {b};",
                     f"      if (acc > {rng.between(1000, 100000)}) acc -= itab[(i + j) & 1023];",
                     "    }", "  }"]
            if names and rng.random() < 0.5:
                body.append(f"  acc += {rng.pick(names)}(n & 7, m & 7);")
            body += ["  return acc;", "}"]
        elif kind == 1:  # floating point expression chain
            body += [f"int fn_{f:05d}(int n, int m) {{", "  double x = n * 0.5, y = m + 1.0;"]
            for _ in range(rng.between(4, 14)):
                body.append(f"  x = x {rng.pick(['+', '-', '*'])} y * {rng.random():.6f} + table[(n + {rng.below(256)}) & 255];")
                body.append(f"  y = (y > {rng.random() * 10:.3f}) ? y * 0.5 : y + x * {rng.random():.4f};")
            body += ["  return (int)(x + y);", "}"]
        elif kind == 2:  # switch dispatch
            cases = rng.between(4, 24)
            body += [f"int fn_{f:05d}(int n, int m) {{", "  int r = m;", "  for (int k = 0; k < n; k++) {",
                     f"    switch ((k * {rng.between(1, 13)} + r) % {cases}) {{"]
            for c in range(cases):
                body.append(f"    case {c}: r = r {rng.pick(ops)} {rng.between(1, 999)}; "
                            f"{'break;' if rng.random() < 0.8 else ''}")
            body += ["    default: r++;", "    }", "  }", "  return r;", "}"]
        elif kind == 3:  # struct and pointer work
            body += [f"int fn_{f:05d}(int n, int m) {{", "  vec acc = {0, 0, 0, 0};",
                     "  for (int i = 0; i < n && i < 512; i++) {", "    vec *p = &pts[(i * 3 + m) & 511];",
                     f"    acc.x += p->x * {rng.random():.5f}; acc.y -= p->y; acc.z += p->z * p->x;",
                     f"    if (p->tag {rng.pick(['<', '>', '=='])} {rng.below(100)}) acc.tag++;", "  }",
                     "  return (int)(acc.x + acc.y + acc.z) + acc.tag;", "}"]
        elif kind == 4:  # linked list
            body += [f"int fn_{f:05d}(int n, int m) {{", "  node pool[64]; node *head = 0; int s = 0;",
                     "  for (int i = 0; i < 64 && i < n; i++) {",
                     f"    pool[i].key = (int)(next_rand() % {rng.between(50, 5000)}); pool[i].val = i * 0.25;",
                     "    pool[i].next = head; head = &pool[i];", "  }",
                     f"  for (node *q = head; q; q = q->next) if (q->key % {rng.between(2, 9)} == m % 3) s += q->key;",
                     "  return s;", "}"]
        else:  # recursion and bit tricks
            body += [f"int fn_{f:05d}(int n, int m) {{",
                     f"  if (n <= {rng.between(1, 3)}) return m ^ {rng.below(4096)};",
                     f"  unsigned v = (unsigned)(n * {rng.between(3, 99)} + m);",
                     f"  v = (v >> {rng.between(1, 7)}) | (v << {rng.between(1, 7)});",
                     f"  return (int)(v % {rng.between(7, 97)}) + fn_{f:05d}(n - 1, m + 1);", "}"]
        out += body
        names.append(name)
    out += ["int main(int argc, char **argv) {", "  (void)argv; int total = 0;",
            "  for (int i = 0; i < 256; i++) table[i] = (double)(next_rand() % 1000) / 7.0;",
            "  for (int i = 0; i < 1024; i++) itab[i] = (int)(next_rand() % 97);"]
    for name in names[:: max(1, len(names) // 400)]:
        out.append(f"  total += {name}(argc + {rng.below(20)}, {rng.below(20)});")
    out += ["  return total & 255;", "}"]
    return "\n".join(out) + "\n"


def gen_binary(rng: Rng, n_bytes: int) -> bytes:
    """Mixed binary data: blocks of text, runs, counters and noise (the content of a file to encrypt)."""
    text = gen_text(rng, 1 << 16).encode()
    noise = bytes(rng.bytes(1 << 16))
    chunks: list[bytes] = []
    size = 0
    counter = 0
    while size < n_bytes:
        kind = rng.below(4)
        n = rng.between(512, 8192)
        if kind == 0:
            off = rng.below(len(text) - n)
            chunk = text[off:off + n]
        elif kind == 1:
            chunk = bytes([rng.below(256)]) * n
        elif kind == 2:
            chunk = b"".join((counter + i).to_bytes(4, "little") for i in range(n // 4))
            counter += n // 4
        else:
            off = rng.below(len(noise) - n)
            chunk = noise[off:off + n]
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:n_bytes]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=["text", "records", "lines", "sql", "csrc", "binary"])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--bytes", type=int, help="binary: size in bytes; text: cut at this size, then a final newline")
    p.add_argument("--rows", type=int, help="records: rows; sql: orders")
    p.add_argument("--lines", type=int, help="lines: number of lines")
    p.add_argument("--functions", type=int, help="csrc: number of functions")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    rng = Rng(a.seed)

    def need(name: str) -> int:
        value = getattr(a, name)
        if value is None:
            p.error(f"{a.kind} needs --{name}")
        return value

    if a.kind == "binary":
        data = gen_binary(rng, need("bytes"))
    else:
        if a.kind == "text":
            text = gen_text(rng, need("bytes"))
        elif a.kind == "records":
            text = gen_records(rng, need("rows"))
        elif a.kind == "lines":
            text = gen_lines(rng, need("lines"))
        elif a.kind == "sql":
            orders = need("rows")
            text = gen_sql(rng, customers=max(100, orders // 20), products=max(50, orders // 100), orders=orders)
        else:
            text = gen_csrc(rng, need("functions"))
        data = text.encode("ascii")
    with open(a.output, "wb") as fh:
        fh.write(data)


if __name__ == "__main__":
    main()
