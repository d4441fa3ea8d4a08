local function map(xs, f)
    local out = {}
    for i = 1, #xs do out[i] = f(xs[i]) end
    return out
end

local function filter(xs, f)
    local out = {}
    for i = 1, #xs do
        if f(xs[i]) then out[#out + 1] = xs[i] end
    end
    return out
end

local function fold(xs, init, f)
    local acc = init
    for i = 1, #xs do acc = f(acc, xs[i]) end
    return acc
end

local xs = {}
for i = 0, 350000 - 1 do xs[#xs + 1] = i end
local acc = 0
for round = 0, 5 - 1 do
    local k = round + 1
    local ys = filter(map(xs, function(x) return x * k end), function(x) return x % 3 == 0 end)
    acc = acc + fold(ys, 0, function(a, b) return a + b end)
end
print(acc)
