-- an infinite loop: stopped by the instruction budget
while true do end
