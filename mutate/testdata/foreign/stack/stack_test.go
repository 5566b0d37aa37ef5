package stack

import "testing"

func TestStack(t *testing.T) {
	var s Stack[string]
	if _, ok := s.Pop(); ok {
		t.Fatal("Pop of an empty stack")
	}
	s.Push("a")
	s.Push("b")
	if v, ok := s.Pop(); v != "b" || !ok {
		t.Fatalf("Pop = %q, %v", v, ok)
	}
	if s.Len() != 1 {
		t.Fatalf("Len = %d after a pop", s.Len())
	}
	if v, ok := s.Pop(); v != "a" || !ok || s.Len() != 0 {
		t.Fatalf("Pop = %q, %v, Len %d", v, ok, s.Len())
	}
}

func TestMax(t *testing.T) {
	if Max(2, 1) != 2 || Max(1, 2) != 2 || Max("a", "b") != "b" || Max(3, 3) != 3 {
		t.Fatal("Max")
	}
}

func TestLimit(t *testing.T) {
	if Limit() != 64 {
		t.Fatalf("Limit = %d", Limit())
	}
}
