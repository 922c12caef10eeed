// Package farm describes a server farm in the words that fluid's theory
// (the mean-field models under meanfield/), its simulator (package sim)
// and its command line share: service disciplines, job-size laws,
// starting states and the disturbances that push a running farm (Push),
// dispatch policies, the join-the-idle-queue scenarios and token
// allotment, and the definition of a stale board that has tipped into the
// herd (Herded, TipWatch). Each comes with the words that name it
// (String) and a parser for those words (Parse…), so that every command
// and every sweep reads the same words with the same meaning.
//
// The models these words describe are written out in docs/models.md; the
// tipping criterion is docs/models.md#the-tipping-criterion.
//
// Parse errors are *param.Error values naming the struct field that the
// word sets (Discipline, Sizes, Start, Policy, Scenario); the command line
// maps field names to its flags.
package farm
