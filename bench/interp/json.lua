-- Hand-written JSON renderer and recursive-descent parser (no json library).
-- Lua tables do not keep key order, so a JSON object is {t = "obj", keys = {...}, vals = {...}}
-- (keys in insertion order) and an array is {t = "arr", items = {...}}.
-- Positions are 1-based here; the printed end position is converted to 0-based.

local function new_obj() return {t = "obj", keys = {}, vals = {}} end
local function obj_set(o, k, v)
    if o.vals[k] == nil then o.keys[#o.keys + 1] = k end
    o.vals[k] = v
end
local function new_arr() return {t = "arr", items = {}} end

local function next_rand(x)
    return (x * 1103515245 + 12345) % 2147483648
end

local function make_data(n)
    local records = new_arr()
    local x = 42
    for i = 0, n - 1 do
        x = next_rand(x)
        local name = "user-" .. tostring(x % 10000)
        if x % 17 == 0 then name = name .. " \"q\"" end
        if x % 23 == 0 then name = name .. " back\\slash" end
        x = next_rand(x)
        local score = x % 1000
        x = next_rand(x)
        local ntags = x % 8
        local tags = new_arr()
        for j = 0, ntags - 1 do
            x = next_rand(x)
            tags.items[#tags.items + 1] = x % 100000
        end
        x = next_rand(x)
        local meta = new_obj()
        obj_set(meta, "level", x % 10)
        obj_set(meta, "group", "g" .. tostring(x % 7))
        local rec = new_obj()
        obj_set(rec, "id", i)
        obj_set(rec, "name", name)
        obj_set(rec, "score", score)
        obj_set(rec, "tags", tags)
        obj_set(rec, "meta", meta)
        records.items[#records.items + 1] = rec
    end
    return records
end

local function render_str(s)
    local parts = {"\""}
    for i = 1, #s do
        local c = string.sub(s, i, i)
        if c == "\"" then
            parts[#parts + 1] = "\\\""
        elseif c == "\\" then
            parts[#parts + 1] = "\\\\"
        elseif c == "\n" then
            parts[#parts + 1] = "\\n"
        else
            parts[#parts + 1] = c
        end
    end
    parts[#parts + 1] = "\""
    return table.concat(parts)
end

local function render(v)
    local ty = type(v)
    if ty == "number" then return tostring(v) end
    if ty == "string" then return render_str(v) end
    if v.t == "arr" then
        local parts = {}
        for _, e in ipairs(v.items) do parts[#parts + 1] = render(e) end
        return "[" .. table.concat(parts, ",") .. "]"
    end
    local parts = {}
    for _, k in ipairs(v.keys) do parts[#parts + 1] = render_str(k) .. ":" .. render(v.vals[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
end

local function skip_ws(cs, p)
    local n = #cs
    local i = p
    while i <= n do
        local c = string.sub(cs, i, i)
        if c == " " or c == "\n" or c == "\t" or c == "\r" then i = i + 1 else break end
    end
    return i
end

local function parse_string(cs, p)
    -- cs[p] is the opening quote
    local parts = {}
    local i = p + 1
    while true do
        local c = string.sub(cs, i, i)
        if c == "\"" then break end
        if c == "\\" then
            local e = string.sub(cs, i + 1, i + 1)
            if e == "n" then
                parts[#parts + 1] = "\n"
            elseif e == "t" then
                parts[#parts + 1] = "\t"
            else
                parts[#parts + 1] = e
            end
            i = i + 2
        else
            parts[#parts + 1] = c
            i = i + 1
        end
    end
    return table.concat(parts), i + 1
end

local function parse_number(cs, p)
    local i = p
    local neg = false
    if string.sub(cs, i, i) == "-" then
        neg = true
        i = i + 1
    end
    local n = #cs
    local v = 0
    while i <= n do
        local c = string.sub(cs, i, i)
        if c >= "0" and c <= "9" then
            v = v * 10 + (string.byte(c) - 48)
            i = i + 1
        else
            break
        end
    end
    if neg then v = 0 - v end
    return v, i
end

local parse_value

local function parse_array(cs, p)
    local items = new_arr()
    local i = skip_ws(cs, p + 1)
    if string.sub(cs, i, i) == "]" then return items, i + 1 end
    while true do
        local v, q = parse_value(cs, i)
        items.items[#items.items + 1] = v
        i = skip_ws(cs, q)
        local c = string.sub(cs, i, i)
        i = i + 1
        if c == "]" then break end
    end
    return items, i
end

local function parse_object(cs, p)
    local m = new_obj()
    local i = skip_ws(cs, p + 1)
    if string.sub(cs, i, i) == "}" then return m, i + 1 end
    while true do
        local k, q = parse_string(cs, i)
        i = skip_ws(cs, q)
        -- cs[i] is ":"
        local v, r = parse_value(cs, i + 1)
        obj_set(m, k, v)
        i = skip_ws(cs, r)
        local c = string.sub(cs, i, i)
        i = i + 1
        if c == "}" then break end
    end
    return m, i
end

parse_value = function(cs, p0)
    local p = skip_ws(cs, p0)
    local c = string.sub(cs, p, p)
    if c == "{" then return parse_object(cs, p) end
    if c == "[" then return parse_array(cs, p) end
    if c == "\"" then return parse_string(cs, p) end
    return parse_number(cs, p)
end

local function checksum(v, h)
    local ty = type(v)
    if ty == "number" then return (h * 31 + v) % 1000000007 end
    if ty == "string" then
        local x = (h * 31 + #v) % 1000000007
        if #v > 0 then x = (x * 31 + string.byte(v, 1)) % 1000000007 end
        return x
    end
    if v.t == "arr" then
        local x = (h * 31 + 91) % 1000000007
        for _, e in ipairs(v.items) do x = checksum(e, x) end
        return x
    end
    local x = (h * 31 + 123) % 1000000007
    for _, k in ipairs(v.keys) do
        x = checksum(k, x)
        x = checksum(v.vals[k], x)
    end
    return x
end

local function main()
    local data = make_data(3000)
    local text = render(data)
    local cs = text
    local parsed, stop = parse_value(cs, 1)
    print(#text .. " " .. (stop - 1))
    print(string.sub(text, 1, 120))
    print(checksum(data, 0) .. " " .. checksum(parsed, 0))
    local same = render(parsed) == text
    print(same and "roundtrip ok" or "roundtrip mismatch")
end

main()
