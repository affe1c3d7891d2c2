#define BOOST_TEST_MODULE esdirk sensitivity
#include <boost/test/unit_test.hpp>
