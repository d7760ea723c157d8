module hostile

go 1.26
