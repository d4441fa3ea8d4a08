-- Generate CSV text, split it into lines and fields, aggregate per region (no csv library).
local function next_rand(x)
    return (x * 1103515245 + 12345) % 2147483648
end

local function split(s, sep)
    local out = {}
    local count = 0
    local start = 1
    while true do
        local i = string.find(s, sep, start, true)
        count = count + 1
        if i == nil then
            out[count] = string.sub(s, start)
            return out
        end
        out[count] = string.sub(s, start, i - 1)
        start = i + #sep
    end
end

local function main()
    local n = 80000
    local names = {"anvil", "bolt", "crank", "dowel", "eyelet", "flange", "gear", "hinge"}
    local regions = {"north", "south", "east", "west", "central", "islands", "coast"}
    local lines = {"name,region,qty,price_cents"}
    local x = 7
    for i = 0, n - 1 do
        x = next_rand(x)
        local name = names[x % 8 + 1] .. "-" .. tostring(x % 1000)
        x = next_rand(x)
        local region = regions[x % 7 + 1]
        x = next_rand(x)
        local qty = x % 50 + 1
        x = next_rand(x)
        local price = x % 100000
        lines[#lines + 1] = name .. "," .. region .. "," .. tostring(qty) .. "," .. tostring(price)
    end
    local text = table.concat(lines, "\n")

    local counts = {}
    local keys = {}
    local qty_total = {}
    local revenue = {}
    local name_chars = 0
    local rows = split(text, "\n")
    local header = split(rows[1], ",")
    for idx, line in ipairs(rows) do
        if idx ~= 1 then
            local f = split(line, ",")
            local region = f[2]
            local q = math.tointeger(tonumber(f[3]))
            local p = math.tointeger(tonumber(f[4]))
            name_chars = name_chars + #f[1]
            if counts[region] == nil then keys[#keys + 1] = region end
            counts[region] = (counts[region] or 0) + 1
            qty_total[region] = (qty_total[region] or 0) + q
            revenue[region] = (revenue[region] or 0) + q * p
        end
    end
    print(#text .. " " .. #rows .. " " .. #header .. " " .. name_chars)
    local grand = 0
    table.sort(keys)
    for _, r in ipairs(keys) do
        local c = counts[r] or 0
        local q = qty_total[r] or 0
        local v = revenue[r] or 0
        grand = grand + v
        print(r .. " " .. c .. " " .. q .. " " .. v)
    end
    print("total " .. grand)
end

main()
