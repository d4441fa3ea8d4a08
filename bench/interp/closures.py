from functools import reduce
xs = list(range(0, 350000))
acc = 0
for rnd in range(0, 5):
    k = rnd + 1
    ys = list(filter(lambda x: x % 3 == 0, map(lambda x: x * k, xs)))
    acc += reduce(lambda a, b: a + b, ys, 0)
print(acc)
