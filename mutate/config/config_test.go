package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("1/3"); err != nil || s != (Shard{1, 3}) || s.String() != "1/3" {
		t.Errorf("1/3: %v %v", s, err)
	}
	if s, err := ParseShard(""); err != nil || s.N != 0 || s.String() != "" {
		t.Errorf("empty: %v %v", s, err)
	}
	for _, bad := range []string{"3/3", "-1/3", "1/0", "1", "a/b"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	c := Default()
	if c.TimeoutFloor != 0 {
		t.Errorf("the default floor is %s, want 0 (derived from the machine)", c.TimeoutFloor)
	}
	c.TimeoutFloor = Duration(2 * time.Second)
	c.Shard = Shard{2, 4}
	c.Operators = []string{"arith", "negate"}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"timeoutFloor":"2s"`) || !strings.Contains(string(data), `"shard":{"k":2,"n":4}`) {
		t.Errorf("JSON %s", data)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.TimeoutFloor.D() != 2*time.Second || back.Shard != c.Shard || strings.Join(back.Operators, ",") != "arith,negate" {
		t.Errorf("round trip: %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"timeoutFloor":"soon"}`), &back); err == nil {
		t.Errorf("bad duration accepted")
	}
}

func TestJudging(t *testing.T) {
	a, b := Default(), Default()
	b.Jobs, b.Name, b.Schemata, b.Shard = 7, "x", false, Shard{1, 2}
	if d := a.Judging().Diff(b.Judging()); len(d) != 0 {
		t.Errorf("jobs, name, mode and shard changed the judging part: %v", d)
	}
	b.StrictTimeouts = true
	b.Operators = []string{"arith"}
	d := a.Judging().Diff(b.Judging())
	if len(d) != 2 || !strings.Contains(strings.Join(d, ";"), "StrictTimeouts: false vs true") {
		t.Errorf("diff %v", d)
	}
}

func TestValidateAndName(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	c.Jobs = 0
	if err := c.Validate(); err == nil {
		t.Error("-j 0 accepted")
	}
	c = Default()
	if c.ReportName() != "mutation" {
		t.Error(c.ReportName())
	}
	c.Shard = Shard{1, 3}
	if c.ReportName() != "mutation-shard-1-of-3" {
		t.Error(c.ReportName())
	}
	c.Name = "n"
	if c.ReportName() != "n" {
		t.Error(c.ReportName())
	}
}
