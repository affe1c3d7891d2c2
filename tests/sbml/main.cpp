#define BOOST_TEST_MODULE esdirk sbml
#include <boost/test/unit_test.hpp>
