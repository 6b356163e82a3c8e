import random
r = random.Random(7)
syll = ["ka","to","ri","mu","sen","dal","or","ex","qui","lo","pra","ne","vi","zu","ham","tel"]
words = ["".join(r.choice(syll) for _ in range(r.randint(1,4))) for _ in range(30000)]
with open("text.txt","w") as f:
    for i in range(60000):
        f.write(" ".join(r.choice(words) for _ in range(r.randint(4,14))) + "\n")
