// Package mcppbench is the Go benchmark the importer tests run (go test -bench).
// MCPP_SLOW=N makes BenchmarkSort sort its input N times per op: the regression
// the tests catch is extra work, never an edited number.
package mcppbench

import (
	"os"
	"sort"
	"strconv"
	"testing"
)

func repeat() int {
	if n, err := strconv.Atoi(os.Getenv("MCPP_SLOW")); err == nil && n > 0 {
		return n
	}
	return 1
}

func input(n int) []int {
	data := make([]int, n)
	for i := range data {
		data[i] = (i * 2654435761) % 1000003
	}
	return data
}

func BenchmarkSort(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			src, work, r := input(n), make([]int, n), repeat()
			b.SetBytes(int64(8 * n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for k := 0; k < r; k++ {
					copy(work, src)
					sort.Ints(work)
				}
			}
		})
	}
}

func BenchmarkSum(b *testing.B) {
	data := input(4096)
	total := 0
	for i := 0; i < b.N; i++ {
		for _, v := range data {
			total += v
		}
	}
	b.ReportMetric(float64(len(data)), "elems/op")
	_ = total
}
