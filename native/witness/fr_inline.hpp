// Included (g++ -include, after circom's fr.hpp) into the circuit's own C++ only, by `cuzk witness
// build`. circom's output moves every field element with a call to the assembly Fr_copy (fr.asm):
// on a Poseidon chain that is ~20,000 calls per hash, mostly template-parameter arrays copied again
// on every component run, and those out-of-line calls were 53% of a witness's time (perf). The
// same 40-byte copy written inline lets the compiler merge and vectorise it; the values are the
// same bytes (FrElement is plain data), so witnesses stay byte-identical.
#pragma once
#include <cstring>

static inline void cuzk_fr_copy(FrElement* r, const FrElement* a) { *r = *a; }
static inline void cuzk_fr_copyn(FrElement* r, const FrElement* a, int n) {
  if (n > 0) memmove(r, a, sizeof(FrElement) * size_t(n));
}
#define Fr_copy(r, a) cuzk_fr_copy((r), (a))
#define Fr_copyn(r, a, n) cuzk_fr_copyn((r), (a), (n))
