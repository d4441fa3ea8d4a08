n = 700000
parts = []
for i in range(0, n):
    parts.append("item-" + str(i))
s = ",".join(parts)
count = 0
for p in s.split(","):
    if p.endswith("7"):
        count += 1
print(len(s), count)
