module goreactor

go 1.26
