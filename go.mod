module github.com/ptc-go/ptc

go 1.24
