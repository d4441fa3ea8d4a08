# Scan generated log lines with regular expressions.
import re


def next_rand(x):
    return (x * 1103515245 + 12345) % 2147483648


def main():
    n = 60000
    levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"]
    users = ["ann", "bob", "cyd", "dee", "eve"]
    lines = []
    x = 99
    for i in range(0, n):
        x = next_rand(x)
        level = levels[x % 6]
        x = next_rand(x)
        user = users[x % 5] + str(x % 100)
        x = next_rand(x)
        line = "t=" + str(1000000 + i) + " level=" + level + " user=" + user
        if x % 4 != 0:
            line = line + " id=" + str(x % 100000)
        x = next_rand(x)
        if x % 9 == 0:
            line = line + " uid=" + str(x % 777)
        x = next_rand(x)
        line = line + " took=" + str(x % 1000) + "ms"
        lines.append(line)
    text = "\n".join(lines)

    re_id = re.compile("id=([0-9]+)")
    re_took = re.compile("took=([0-9]+)ms")
    re_err = re.compile("level=ERROR")
    re_user = re.compile("user=([a-z]+)([0-9]+)")

    id_count = 0
    id_sum = 0
    for m in re_id.finditer(text):
        id_count += 1
        id_sum += int(m.group(1))

    errors = 0
    slow = 0
    took_sum = 0
    user_sum = 0
    for line in lines:
        if re_err.search(line) is not None:
            errors += 1
        m = re_took.search(line)
        if m is not None:
            ms = int(m.group(1))
            took_sum += ms
            if ms >= 900:
                slow += 1
        m = re_user.search(line)
        if m is not None:
            g = m.groups()
            user_sum += len(g[0]) * 1000 + int(g[1])
    print(len(text), len(lines))
    print("ids", id_count, id_sum)
    print("errors", errors, "slow", slow, "took", took_sum)
    print("users", user_sum)


main()
