module example.com/go116

go 1.16
