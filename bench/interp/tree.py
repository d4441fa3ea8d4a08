# Build a complete binary tree of nested dicts bottom-up, then walk it recursively.
def make(depth, id):
    if depth == 0:
        return {"value": id % 1000, "left": None, "right": None}
    left = make(depth - 1, id * 2)
    right = make(depth - 1, id * 2 + 1)
    return {"value": id % 1000, "left": left, "right": right}


def sum_tree(t):
    if t is None:
        return 0
    return t["value"] + sum_tree(t["left"]) + sum_tree(t["right"])


def count_nodes(t):
    if t is None:
        return 0
    return 1 + count_nodes(t["left"]) + count_nodes(t["right"])


def max_depth(t):
    if t is None:
        return 0
    a = max_depth(t["left"])
    b = max_depth(t["right"])
    return 1 + a if a > b else 1 + b


def main():
    t = make(17, 1)
    print(count_nodes(t), sum_tree(t), max_depth(t))


main()
