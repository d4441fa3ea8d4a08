-- Scan generated log lines with Lua patterns (the same patterns: [0-9], [a-z], captures).
local function next_rand(x)
    return (x * 1103515245 + 12345) % 2147483648
end

local function main()
    local n = 60000
    local levels = {"INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"}
    local users = {"ann", "bob", "cyd", "dee", "eve"}
    local lines = {}
    local x = 99
    for i = 0, n - 1 do
        x = next_rand(x)
        local level = levels[x % 6 + 1]
        x = next_rand(x)
        local user = users[x % 5 + 1] .. tostring(x % 100)
        x = next_rand(x)
        local line = "t=" .. tostring(1000000 + i) .. " level=" .. level .. " user=" .. user
        if x % 4 ~= 0 then line = line .. " id=" .. tostring(x % 100000) end
        x = next_rand(x)
        if x % 9 == 0 then line = line .. " uid=" .. tostring(x % 777) end
        x = next_rand(x)
        line = line .. " took=" .. tostring(x % 1000) .. "ms"
        lines[#lines + 1] = line
    end
    local text = table.concat(lines, "\n")

    local pat_id = "id=([0-9]+)"
    local pat_took = "took=([0-9]+)ms"
    local pat_err = "level=ERROR"
    local pat_user = "user=([a-z]+)([0-9]+)"

    local id_count = 0
    local id_sum = 0
    for d in string.gmatch(text, pat_id) do
        id_count = id_count + 1
        id_sum = id_sum + math.tointeger(tonumber(d))
    end

    local errors = 0
    local slow = 0
    local took_sum = 0
    local user_sum = 0
    for _, line in ipairs(lines) do
        if string.find(line, pat_err) ~= nil then errors = errors + 1 end
        local d = string.match(line, pat_took)
        if d ~= nil then
            local ms = math.tointeger(tonumber(d))
            took_sum = took_sum + ms
            if ms >= 900 then slow = slow + 1 end
        end
        local g1, g2 = string.match(line, pat_user)
        if g1 ~= nil then
            user_sum = user_sum + #g1 * 1000 + math.tointeger(tonumber(g2))
        end
    end
    print(#text .. " " .. #lines)
    print("ids " .. id_count .. " " .. id_sum)
    print("errors " .. errors .. " slow " .. slow .. " took " .. took_sum)
    print("users " .. user_sum)
end

main()
