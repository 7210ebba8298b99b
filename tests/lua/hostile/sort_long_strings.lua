-- 100k references to one 8 MB string: a single table.sort would compare for
-- hours inside C; refused by its cost estimate before it starts
local big = string.rep("a", 8000000)
local t = {}
for i = 1, 100000 do t[i] = big end
table.sort(t)
