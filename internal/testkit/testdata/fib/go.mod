module fib

go 1.26
