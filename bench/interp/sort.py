n = 400000
xs = []
x = 12345
for i in range(0, n):
    x = (x * 1103515245 + 12345) % 2147483648
    xs.append(x % 1000000)
ys = sorted(xs)
zs = sorted(xs, key=lambda v: 0 - v)
check = 0
i = 0
while i < n:
    check = (check * 31 + ys[i] + 7 * zs[i]) % 1000000007
    i += 997
print(ys[0], ys[n // 2], ys[n - 1])
print(zs[0], zs[n // 3], zs[n - 1])
print(check)
