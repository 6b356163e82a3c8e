import sys
words = open("text.txt").read().split()
cnt = {}
for w in words:
    cnt[w] = cnt.get(w, 0) + 1
uniq = set(words)
rev = [w[::-1] for w in uniq if len(w) % 3 == 0]
index = {}
for i, w in enumerate(rev):
    index.setdefault(w[:3], []).append(i)
pairs = set()
for a, b in zip(words, words[1:]):
    if a in index or b[:3] in index:
        pairs.add((a, b))
top = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))[:50]
print(len(uniq), len(rev), len(pairs), top[0])
