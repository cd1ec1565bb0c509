// Package layers holds, in its test, the one statement of edged's
// layering: which package sits on which layer of the data flow, so that
// no import runs back up a layer (docs/DESIGN.md), plus the few rules
// the layers alone do not express. It has no code; every new package is
// placed in the table of layers_test.go, or the test fails. Its
// design_test.go checks that the package tables of docs/DESIGN.md and
// README.md name every package of the module once and no other.
package layers
