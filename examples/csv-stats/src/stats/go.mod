module example.com/csv-stats

go 1.24
