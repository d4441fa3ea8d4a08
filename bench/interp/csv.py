# Generate CSV text, split it into lines and fields, aggregate per region (no csv library).
def next_rand(x):
    return (x * 1103515245 + 12345) % 2147483648


def main():
    n = 80000
    names = ["anvil", "bolt", "crank", "dowel", "eyelet", "flange", "gear", "hinge"]
    regions = ["north", "south", "east", "west", "central", "islands", "coast"]
    lines = ["name,region,qty,price_cents"]
    x = 7
    for i in range(0, n):
        x = next_rand(x)
        name = names[x % 8] + "-" + str(x % 1000)
        x = next_rand(x)
        region = regions[x % 7]
        x = next_rand(x)
        qty = x % 50 + 1
        x = next_rand(x)
        price = x % 100000
        lines.append(name + "," + region + "," + str(qty) + "," + str(price))
    text = "\n".join(lines)

    counts = {}
    qty_total = {}
    revenue = {}
    name_chars = 0
    rows = text.split("\n")
    header = rows[0].split(",")
    for idx, line in enumerate(rows):
        if idx == 0:
            continue
        f = line.split(",")
        region = f[1]
        q = int(f[2])
        p = int(f[3])
        name_chars += len(f[0])
        counts[region] = counts.get(region, 0) + 1
        qty_total[region] = qty_total.get(region, 0) + q
        revenue[region] = revenue.get(region, 0) + q * p
    print(len(text), len(rows), len(header), name_chars)
    grand = 0
    for r in sorted(counts.keys()):
        c = counts.get(r, 0)
        q = qty_total.get(r, 0)
        v = revenue.get(r, 0)
        grand += v
        print(r, c, q, v)
    print("total", grand)


main()
