// Package sum is a second package of the module, so `go test -json ./...`
// writes the events of two packages, each closed by its own pass event.
package sum

import "testing"

func BenchmarkSum(b *testing.B) {
	data := make([]int, 4096)
	for i := range data {
		data[i] = i
	}
	for i := 0; i < b.N; i++ {
		s := 0
		for _, v := range data {
			s += v
		}
		if s < 0 {
			b.Fatal(s)
		}
	}
}
