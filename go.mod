module github.com/fluidlb/fluid

go 1.26
