// The example worker compiled as C++17: kfdmp_worker.h is C and C++.
#include "kfdmp_example_worker.c"
