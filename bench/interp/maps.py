n = 800000
counts = {}
for i in range(0, n):
    k = "k" + str(i % 500)
    counts[k] = counts.get(k, 0) + 1
total = 0
for k, v in counts.items():
    total += v
print(len(counts), total)
