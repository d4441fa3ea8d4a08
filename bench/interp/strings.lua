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

local function ends_with(s, t)
    return #s >= #t and string.sub(s, #s - #t + 1) == t
end

local n = 700000
local parts = {}
for i = 0, n - 1 do
    parts[i + 1] = "item-" .. tostring(i)
end
local s = table.concat(parts, ",")
local count = 0
for _, p in ipairs(split(s, ",")) do
    if ends_with(p, "7") then count = count + 1 end
end
print(#s .. " " .. count)
