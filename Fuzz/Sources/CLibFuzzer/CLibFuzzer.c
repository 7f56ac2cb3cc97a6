// Nothing to compile: the declaration in include/ is the point of this target.
#include "CLibFuzzer.h"
