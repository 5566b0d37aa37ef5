module gathermut

go 1.26
