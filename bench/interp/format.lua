-- Build report lines with string.format and hand-padded columns.
local function next_rand(x)
    return (x * 1103515245 + 12345) % 2147483648
end

local function pad_left(s, w)
    if #s >= w then return s end
    return string.rep(" ", w - #s) .. s
end

local function pad_right(s, w)
    if #s >= w then return s end
    return s .. string.rep(" ", w - #s)
end

local function money(cents)
    local d = cents // 100
    local r = cents % 100
    local rs
    if r < 10 then rs = "0" .. tostring(r) else rs = tostring(r) end
    return string.format("%d.%s", d, rs)
end

local function main()
    local n = 60000
    local names = {"anvil", "bolt", "crankshaft", "dowel", "eyelet", "flange", "gear", "hinge-pin"}
    local lines = {}
    local x = 2024
    local grand = 0
    for i = 0, n - 1 do
        x = next_rand(x)
        local name = names[x % 8 + 1]
        x = next_rand(x)
        local qty = x % 120 + 1
        x = next_rand(x)
        local price = x % 50000 + 5
        local total = qty * price
        grand = grand + total
        local name_col = pad_right(name, 12)
        local qty_col = pad_left(tostring(qty), 5)
        local unit = pad_left(money(price), 8)
        local amount = pad_left(money(total), 10)
        local line = string.format("#%d %s|%s x %s = %s", i, name_col, qty_col, unit, amount)
        lines[#lines + 1] = line
    end
    local grand_s = money(grand)
    lines[#lines + 1] = string.format("TOTAL %s over %d lines", grand_s, n)
    local report = table.concat(lines, "\n")

    local h = 0
    local total_len = 0
    for idx, line in ipairs(lines) do
        local k = idx - 1
        total_len = total_len + #line
        h = (h * 31 + #line) % 1000000007
        if k % 8 == 0 then
            for j = 1, #line do h = (h * 131 + string.byte(line, j)) % 1000000007 end
        end
    end
    print(#report .. " " .. total_len .. " " .. h)
    print(lines[1])
    print(lines[n // 2 + 1])
    print(lines[n + 1])
end

main()
