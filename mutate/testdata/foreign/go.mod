module example.com/foreign

go 1.22
