//go:build race

// Package race says whether the race detector is built in, for tests whose volume is there
// to measure or to fill pages, not to find races: under the detector (`npx just test` runs
// the packages with background work again with -race) they run smaller or not at all, as
// the detector makes SQLite's engine ten times slower, and the run without it keeps them
// whole.
package race

// Enabled is true in a binary built with -race.
const Enabled = true
