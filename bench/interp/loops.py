n = 1600
total = 0
for i in range(0, n):
    for j in range(0, n):
        if (i + j) % 3 == 0:
            total += i - j
        else:
            total += 1
print(total)
