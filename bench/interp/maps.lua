local n = 800000
local counts = {}
local size = 0
for i = 0, n - 1 do
    local k = "k" .. tostring(i % 500)
    local old = counts[k]
    if old == nil then
        size = size + 1
        old = 0
    end
    counts[k] = old + 1
end
local total = 0
for k, v in pairs(counts) do total = total + v end
print(size .. " " .. total)
