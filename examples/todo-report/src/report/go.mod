module example.com/todo-report

go 1.24
