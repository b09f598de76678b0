// Catch2 main for the unit test executable (compiled once).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
