// Package lists is the grammar of every list flag of fluid, in and out of
// sweeps (fluid edge -k 2..10, fluid sweep jiq --load 0.8..0.95:0.05):
//
//	0.8,0.9,0.95       a list
//	3..10              a range with step 1
//	0.80..0.95:0.05    a range with a step, which must land on the end
//	                   (within 1e-9 of a step)
//	10..100000*10      a geometric range, while ≤ the end
//
// Integers are decimal (010 is ten); NaN, Inf, hexadecimal and backwards
// ranges are errors naming the flag (Error). Values from float ranges are
// rounded to the decimals of the range's numbers, so that 0.80..0.95:0.05
// holds 0.85, printed canonically (FormatFloat) as 0.85. A flag takes at
// most MaxValues values. Words (policies, size laws) are comma lists; a
// flag whose one value is itself a comma list (a vector: --alpha 0.7,0.3)
// separates its values with ';', each vector of at most MaxValues entries
// and MaxEntries in all.
//
// A Value keeps its canonical text (what a command is given) with the
// number(s) it denotes; its Kind is the type of a sweep's grid dimension.
// The commands whose flags take these lists are described with their models
// in docs/models.md.
package lists
