#define BOOST_TEST_MODULE esdirk events
#include <boost/test/unit_test.hpp>
