local n = 1600
local total = 0
for i = 0, n - 1 do
    for j = 0, n - 1 do
        if (i + j) % 3 == 0 then total = total + (i - j) else total = total + 1 end
    end
end
print(total)
