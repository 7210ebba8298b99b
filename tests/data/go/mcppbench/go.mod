module example.com/mcppbench

go 1.19
