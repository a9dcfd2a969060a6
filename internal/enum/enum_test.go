package enum

import (
	"errors"
	"testing"
)

type color string

const (
	red  color = "red"
	blue color = "blue"
)

func TestParse(t *testing.T) {
	if got, err := Parse([]byte("blue"), red, blue); got != blue || err != nil {
		t.Errorf("Parse(blue) = %q, %v", got, err)
	}
	_, err := Parse([]byte("green"), red, blue)
	var e *Error
	if !errors.As(err, &e) || err.Error() != `"green" is not one of red, blue` {
		t.Errorf("Parse(green): %v", err)
	}
	if _, err := Parse([]byte(""), red, blue); err == nil {
		t.Error(`Parse("") accepted`)
	}
}

func TestCheck(t *testing.T) {
	if Check(color(""), red) != nil || Check(red, red, blue) != nil {
		t.Error("the zero value or a name refused")
	}
	if err := Check(color("green"), red, blue); err == nil || err.Error() != `"green" is not one of red, blue` {
		t.Errorf("Check(green): %v", err)
	}
}

func TestIndex(t *testing.T) {
	if i, err := Index([]byte("v2"), "none", "v1", "v2"); i != 2 || err != nil {
		t.Errorf("Index(v2) = %d, %v", i, err)
	}
	if _, err := Index([]byte("2"), "none", "v1", "v2"); err == nil || err.Error() != `"2" is not one of none, v1, v2` {
		t.Errorf("Index(2): %v", err)
	}
	if Name(1, "none", "v1") != "v1" || Name(7, "none") != "7" {
		t.Error("Name")
	}
}
