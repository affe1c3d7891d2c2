#define BOOST_TEST_MODULE esdirk sbml suite files
#include <boost/test/unit_test.hpp>
