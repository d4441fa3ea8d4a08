total = 0
for i in range(0, 600):
    for j in range(0, 600):
        if (i + j) % 3 == 0:
            total += i - j
        else:
            total += 1
print(total)
