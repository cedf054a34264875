module github.com/servetune/servetune

go 1.26.8
