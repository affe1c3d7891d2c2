#define BOOST_TEST_MODULE esdirk core
#include <boost/test/unit_test.hpp>
