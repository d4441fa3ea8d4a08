# Hand-written JSON renderer and recursive-descent parser (no json library).
def next_rand(x):
    return (x * 1103515245 + 12345) % 2147483648


def make_data(n):
    records = []
    x = 42
    for i in range(0, n):
        x = next_rand(x)
        name = "user-" + str(x % 10000)
        if x % 17 == 0:
            name = name + " \"q\""
        if x % 23 == 0:
            name = name + " back\\slash"
        x = next_rand(x)
        score = x % 1000
        x = next_rand(x)
        ntags = x % 8
        tags = []
        for j in range(0, ntags):
            x = next_rand(x)
            tags.append(x % 100000)
        x = next_rand(x)
        meta = {"level": x % 10, "group": "g" + str(x % 7)}
        records.append({"id": i, "name": name, "score": score, "tags": tags, "meta": meta})
    return records


def render_str(s):
    parts = ["\""]
    for c in s:
        if c == "\"":
            parts.append("\\\"")
        elif c == "\\":
            parts.append("\\\\")
        elif c == "\n":
            parts.append("\\n")
        else:
            parts.append(c)
    parts.append("\"")
    return "".join(parts)


def render(v):
    if type(v) is int:
        return str(v)
    if type(v) is str:
        return render_str(v)
    if type(v) is list:
        parts = []
        for e in v:
            parts.append(render(e))
        return "[" + ",".join(parts) + "]"
    parts = []
    for k, e in v.items():
        parts.append(render_str(k) + ":" + render(e))
    return "{" + ",".join(parts) + "}"


def skip_ws(cs, p):
    n = len(cs)
    i = p
    while i < n:
        c = cs[i]
        if c == " " or c == "\n" or c == "\t" or c == "\r":
            i += 1
        else:
            break
    return i


def parse_string(cs, p):
    # cs[p] is the opening quote
    parts = []
    i = p + 1
    while True:
        c = cs[i]
        if c == "\"":
            break
        if c == "\\":
            e = cs[i + 1]
            if e == "n":
                parts.append("\n")
            elif e == "t":
                parts.append("\t")
            else:
                parts.append(e)
            i += 2
        else:
            parts.append(c)
            i += 1
    return ("".join(parts), i + 1)


def parse_number(cs, p):
    i = p
    neg = False
    if cs[i] == "-":
        neg = True
        i += 1
    n = len(cs)
    v = 0
    while i < n:
        c = cs[i]
        if c >= "0" and c <= "9":
            v = v * 10 + (ord(c) - 48)
            i += 1
        else:
            break
    if neg:
        v = 0 - v
    return (v, i)


def parse_array(cs, p):
    items = []
    i = skip_ws(cs, p + 1)
    if cs[i] == "]":
        return (items, i + 1)
    while True:
        (v, q) = parse_value(cs, i)
        items.append(v)
        i = skip_ws(cs, q)
        c = cs[i]
        i += 1
        if c == "]":
            break
    return (items, i)


def parse_object(cs, p):
    m = {}
    i = skip_ws(cs, p + 1)
    if cs[i] == "}":
        return (m, i + 1)
    while True:
        (k, q) = parse_string(cs, i)
        i = skip_ws(cs, q)
        # cs[i] is ":"
        (v, r) = parse_value(cs, i + 1)
        m[k] = v
        i = skip_ws(cs, r)
        c = cs[i]
        i += 1
        if c == "}":
            break
    return (m, i)


def parse_value(cs, p0):
    p = skip_ws(cs, p0)
    c = cs[p]
    if c == "{":
        return parse_object(cs, p)
    if c == "[":
        return parse_array(cs, p)
    if c == "\"":
        return parse_string(cs, p)
    return parse_number(cs, p)


def checksum(v, h):
    if type(v) is int:
        return (h * 31 + v) % 1000000007
    if type(v) is str:
        x = (h * 31 + len(v)) % 1000000007
        if len(v) > 0:
            x = (x * 31 + ord(v[0])) % 1000000007
        return x
    if type(v) is list:
        x = (h * 31 + 91) % 1000000007
        for e in v:
            x = checksum(e, x)
        return x
    x = (h * 31 + 123) % 1000000007
    for k, e in v.items():
        x = checksum(k, x)
        x = checksum(e, x)
    return x


def main():
    data = make_data(3000)
    text = render(data)
    cs = text
    (parsed, end) = parse_value(cs, 0)
    print(len(text), end)
    print(text[0:120])
    print(checksum(data, 0), checksum(parsed, 0))
    same = render(parsed) == text
    print("roundtrip ok" if same else "roundtrip mismatch")


main()
