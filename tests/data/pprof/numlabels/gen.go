// Writes numlabels.pb.gz, a small synthetic heap-like pprof profile whose
// samples carry numeric labels with units, for profkit's label tests:
//   size   a number of bytes (unit "bytes"), 40 distinct values, absent
//          on some samples (more values than the page lists one by one)
//   pages  a count (unit "count"),
//          3 values, absent on some samples
//   pair   two numbers of bytes on one sample, one on others
//   mixed  a number on some samples, a string on others, both on one
//   kind   a string key
// Build offline: GO111MODULE=off GOPATH=/usr/share/gocode go run gen.go OUT
package main

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     1,
	}
	var fns []*profile.Function
	var locs []*profile.Location
	for i, name := range []string{"main.main", "main.alloc", "main.small", "main.large", "main.grow", "main.other"} {
		f := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "gen.go"}
		l := &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 + 16*i), Line: []profile.Line{{Function: f, Line: int64(10 + i)}}}
		fns = append(fns, f)
		locs = append(locs, l)
	}
	p.Function = fns
	p.Location = locs
	stack := func(ids ...int) []*profile.Location {
		var out []*profile.Location
		for i := len(ids) - 1; i >= 0; i-- { // leaf first
			out = append(out, locs[ids[i]])
		}
		return out
	}
	add := func(st []*profile.Location, v int64, num map[string][]int64, unit map[string][]string, str map[string][]string) {
		p.Sample = append(p.Sample, &profile.Sample{Location: st, Value: []int64{1, v}, NumLabel: num, NumUnit: unit, Label: str})
	}
	// size: 40 distinct values over three stacks, a kind string on each
	for i := 0; i < 40; i++ {
		size := int64(16 * (i + 1) * (i + 1))
		st := stack(0, 1, 2)
		if i%3 == 1 {
			st = stack(0, 1, 3)
		} else if i%3 == 2 {
			st = stack(0, 4)
		}
		kind := []string{"small", "large", "grow"}[i%3]
		add(st, size*int64(1+i%4), map[string][]int64{"size": {size}, "pages": {int64(1 + i%3)}},
			map[string][]string{"size": {"bytes"}, "pages": {"count"}}, map[string][]string{"kind": {kind}})
	}
	// no numeric label at all
	add(stack(0, 5), 5000, nil, nil, map[string][]string{"kind": {"other"}})
	add(stack(0, 1, 2), 700, nil, nil, nil)
	// pair: two numbers on one sample, one on others
	add(stack(0, 1, 3), 3072, map[string][]int64{"pair": {1024, 2048}}, map[string][]string{"pair": {"bytes", "bytes"}}, nil)
	add(stack(0, 4), 1024, map[string][]int64{"pair": {1024}}, map[string][]string{"pair": {"bytes"}}, nil)
	add(stack(0, 5), 4096, map[string][]int64{"pair": {4096}}, map[string][]string{"pair": {"bytes"}}, nil)
	// mixed: a number, a string, both
	add(stack(0, 1, 2), 512, map[string][]int64{"mixed": {512}}, map[string][]string{"mixed": {"bytes"}}, nil)
	add(stack(0, 4), 256, nil, nil, map[string][]string{"mixed": {"lots"}})
	add(stack(0, 5), 128, map[string][]int64{"mixed": {2048}}, map[string][]string{"mixed": {"bytes"}}, map[string][]string{"mixed": {"some"}})
	if err := p.CheckValid(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
