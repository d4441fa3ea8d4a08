xs = []
x = 12345
for i in range(0, 60000):
    x = (x * 1103515245 + 12345) % 2147483648
    xs.append(x % 100000)
ys = sorted(xs)
zs = sorted(xs, key=lambda v: 0 - v)
print(ys[0], ys[59999], zs[0])
