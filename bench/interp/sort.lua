local n = 400000
local xs = {}
local x = 12345
for i = 0, n - 1 do
    x = (x * 1103515245 + 12345) % 2147483648
    xs[#xs + 1] = x % 1000000
end
local ys = {}
for i = 1, #xs do ys[i] = xs[i] end
table.sort(ys)
local key = function(v) return 0 - v end
local zs = {}
for i = 1, #xs do zs[i] = xs[i] end
table.sort(zs, function(a, b) return key(a) < key(b) end)
local check = 0
local i = 0
while i < n do
    check = (check * 31 + ys[i + 1] + 7 * zs[i + 1]) % 1000000007
    i = i + 997
end
print(ys[1] .. " " .. ys[n // 2 + 1] .. " " .. ys[n])
print(zs[1] .. " " .. zs[n // 3 + 1] .. " " .. zs[n])
print(check)
