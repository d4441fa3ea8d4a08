# Build report lines with string interpolation (f-strings) and hand-padded columns.
def next_rand(x):
    return (x * 1103515245 + 12345) % 2147483648


def pad_left(s, w):
    if len(s) >= w:
        return s
    return " " * (w - len(s)) + s


def pad_right(s, w):
    if len(s) >= w:
        return s
    return s + " " * (w - len(s))


def money(cents):
    d = cents // 100
    r = cents % 100
    rs = "0" + str(r) if r < 10 else str(r)
    return f"{d}.{rs}"


def main():
    n = 60000
    names = ["anvil", "bolt", "crankshaft", "dowel", "eyelet", "flange", "gear", "hinge-pin"]
    lines = []
    x = 2024
    grand = 0
    for i in range(0, n):
        x = next_rand(x)
        name = names[x % 8]
        x = next_rand(x)
        qty = x % 120 + 1
        x = next_rand(x)
        price = x % 50000 + 5
        total = qty * price
        grand += total
        name_col = pad_right(name, 12)
        qty_col = pad_left(str(qty), 5)
        unit = pad_left(money(price), 8)
        amount = pad_left(money(total), 10)
        line = f"#{i} {name_col}|{qty_col} x {unit} = {amount}"
        lines.append(line)
    grand_s = money(grand)
    lines.append(f"TOTAL {grand_s} over {n} lines")
    report = "\n".join(lines)

    h = 0
    total_len = 0
    for k, line in enumerate(lines):
        total_len += len(line)
        h = (h * 31 + len(line)) % 1000000007
        if k % 8 == 0:
            for c in line:
                h = (h * 131 + ord(c)) % 1000000007
    print(len(report), total_len, h)
    print(lines[0])
    print(lines[n // 2])
    print(lines[n])


main()
