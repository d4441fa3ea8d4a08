-- Build a complete binary tree of nested tables bottom-up, then walk it recursively.
local function make(depth, id)
    if depth == 0 then
        return {value = id % 1000, left = nil, right = nil}
    end
    local left = make(depth - 1, id * 2)
    local right = make(depth - 1, id * 2 + 1)
    return {value = id % 1000, left = left, right = right}
end

local function sum_tree(t)
    if t == nil then return 0 end
    return t.value + sum_tree(t.left) + sum_tree(t.right)
end

local function count_nodes(t)
    if t == nil then return 0 end
    return 1 + count_nodes(t.left) + count_nodes(t.right)
end

local function max_depth(t)
    if t == nil then return 0 end
    local a = max_depth(t.left)
    local b = max_depth(t.right)
    if a > b then return 1 + a else return 1 + b end
end

local function main()
    local t = make(17, 1)
    print(count_nodes(t) .. " " .. sum_tree(t) .. " " .. max_depth(t))
end

main()
