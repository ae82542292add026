#define COPA_TEST_MAIN
#include "copa/testing.hpp"
